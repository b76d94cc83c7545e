/* swapper: exchange each pair of names again and again with renameat2(2)
 * RENAME_EXCHANGE (a directory and a symbolic link, say), as an agent racing
 * another attempt's check would, until the file STOP exists or SECONDS have
 * passed. Prints how many exchanges it made. Exit 0, 1 when an exchange
 * failed, 2 on a usage error. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int
main(int argc, char *argv[])
{
	unsigned long n = 0;
	time_t end;

	if (argc < 5 || (argc - 3) % 2 != 0) {
		fprintf(stderr, "usage: swapper STOP SECONDS A B [A B ...]\n");
		return 2;
	}
	end = time(NULL) + atoi(argv[2]);
	while (access(argv[1], F_OK) != 0 && time(NULL) < end) {
		for (int i = 0; i < 64; i++)
			for (int k = 3; k < argc; k += 2, n++)
				if (syscall(SYS_renameat2, AT_FDCWD, argv[k], AT_FDCWD, argv[k + 1],
				    RENAME_EXCHANGE) != 0) {
					perror("swapper: renameat2");
					return 1;
				}
	}
	printf("%lu\n", n);
	return 0;
}
