/* dumpenv: print this process's environment, one NAME=VALUE per line, or
 * NUL-terminated with -0. With -w, then close stdout and wait for EOF on
 * stdin, so a test can inspect the running process (/proc/PID/...) after
 * reading everything it printed. Exit 0, or 2 on a usage or write error. */
#include <string.h>
#include <unistd.h>

#include "fdio.h"

extern char **environ;

int
main(int argc, char *argv[])
{
	char sep = '\n', c;
	int i, wait = 0;
	char **e;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-0") == 0)
			sep = '\0';
		else if (strcmp(argv[i], "-w") == 0)
			wait = 1;
		else {
			static const char u[] = "usage: dumpenv [-0] [-w]\n";
			(void)!write(2, u, sizeof u - 1);
			return 2;
		}
	}
	for (e = environ; e && *e; e++)
		if (fd_write_all(1, *e, strlen(*e)) < 0 || fd_write_all(1, &sep, 1) < 0)
			return 2;
	if (wait) {
		close(1);
		while (read(0, &c, 1) > 0)
			;
	}
	return 0;
}
