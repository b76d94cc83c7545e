/* pty-musl openpty | forkpty: musl's own openpty and forkpty (a static
 * program, as codex and other musl builds are): /dev/ptmx, then the slave
 * by its name, O_RDWR|O_NOCTTY; forkpty's child makes it its controlling
 * terminal (TIOCSCTTY). Prints "ok x" / "ok pts tty" or the errno's text;
 * exits 0 either way, 2 on usage errors. */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char buf[64];
	int m, s, fd;
	ssize_t n, got = 0;
	pid_t pid;

	if (argc == 2 && strcmp(argv[1], "openpty") == 0) {
		if (openpty(&m, &s, NULL, NULL, NULL) != 0) {
			printf("%s\n", strerror(errno));
			return 0;
		}
		if (write(s, "x", 1) != 1 || read(m, buf, 1) != 1)
			printf("%s\n", strerror(errno));
		else
			printf("ok %c\n", buf[0]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "forkpty") == 0) {
		pid = forkpty(&m, NULL, NULL, NULL);
		if (pid < 0) {
			printf("%s\n", strerror(errno));
			return 0;
		}
		if (pid == 0) {
			fd = open("/dev/tty", O_RDWR);
			if (fd < 0)
				printf("%s\n", strerror(errno));
			else
				printf("%s\n", ttyname(0) && strncmp(ttyname(0), "/dev/pts/", 9) == 0 ?
				    "pts tty" : "no pts");
			_exit(0);
		}
		while (got < (ssize_t)sizeof buf - 1 &&
		    (n = read(m, buf + got, sizeof buf - 1 - (size_t)got)) > 0)
			got += n;
		buf[got] = '\0';
		waitpid(pid, NULL, 0);
		buf[strcspn(buf, "\r\n")] = '\0';
		printf("%s%s\n", strcmp(buf, "pts tty") == 0 ? "ok " : "", buf);
		return 0;
	}
	fprintf(stderr, "usage: pty-musl openpty | forkpty\n");
	return 2;
}
