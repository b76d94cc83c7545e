/* lib/fdio: fd_write_nopipe, a go byte to a reader that is there and to
 * one that has ended. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "fdio.h"
#include "tap.h"

int
main(void)
{
	sigset_t pending;
	char c = 0;
	int p[2];

	/* control: a reader there gets the byte */
	if (pipe(p) < 0)
		return 1;
	ok(fd_write_nopipe(p[1], "g", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'g',
	    "control: the byte reaches a reader that is there");
	close(p[0]);
	close(p[1]);

	/* no reader left: EPIPE, and this process goes on (SIG_DFL would
	 * end it here), with no SIGPIPE left pending */
	signal(SIGPIPE, SIG_DFL);
	if (pipe(p) < 0)
		return 1;
	close(p[0]);
	errno = 0;
	ok(fd_write_nopipe(p[1], "g", 1) == -1 && errno == EPIPE, "no reader: -1, EPIPE");
	sigpending(&pending);
	ok(!sigismember(&pending, SIGPIPE), "... its SIGPIPE taken, none pending");
	close(p[1]);
	done_testing();
}
