/* bench/pty-floor: the least a relay can do, for bench/pty to set keeper's
 * relay beside: a pty of its own with cat on it (raw, no echo), and bytes
 * relayed both ways by one poll loop as keeper's (its signal pipe's place
 * kept in the set), with no filter, no job control, no signals. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

int
main(void)
{
	static char b[16384];
	struct termios t;
	char sn[64];
	int m, s;
	pid_t p;
	ssize_t n;

	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    ptsname_r(m, sn, sizeof sn) != 0 || (s = open(sn, O_RDWR | O_NOCTTY)) < 0 ||
	    tcgetattr(s, &t) < 0)
		return 1;
	cfmakeraw(&t);
	(void)tcsetattr(s, TCSANOW, &t);
	if ((p = fork()) == 0) {
		int c;
		setsid();
		if ((c = open(sn, O_RDWR)) < 0)
			_exit(127);
		dup2(c, 0), dup2(c, 1), dup2(c, 2);
		/* only the pty's side: a master kept open here would keep cat
		 * from its hangup when this relay ends, for ever */
		close(m);
		if (c > 2)
			close(c);
		if (s > 2)
			close(s);
		execve("/bin/cat", (char *[]){ "cat", NULL }, (char *[]){ NULL });
		_exit(127);
	}
	/* s stays open, as keeper's: no hangup on the master before cat has
	 * opened its side */
	if (p < 0 || tcgetattr(0, &t) < 0)
		return 1;
	cfmakeraw(&t);
	(void)tcsetattr(0, TCSANOW, &t);
	for (;;) {
		struct pollfd pf[3] = { { -1, POLLIN, 0 }, { m, POLLIN, 0 }, { 0, POLLIN, 0 } };

		if (poll(pf, 3, -1) < 0)
			continue;
		if (pf[1].revents) {
			if ((n = read(m, b, sizeof b)) <= 0 || write(1, b, (size_t)n) != n)
				break;
		}
		if (pf[2].revents) {
			if ((n = read(0, b, sizeof b)) <= 0 || write(m, b, (size_t)n) != n)
				break;
		}
	}
	kill(p, SIGKILL);
	return 0;
}
