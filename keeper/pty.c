/* pty: see pty.h. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "fdio.h"
#include "pty.h"

static int
writable(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

int
pty_open(struct pty *t)
{
	int i, fl;

	/* all but the buffers (buf, the filter's seq: read only below blen,
	 * n), each page of them a fault when written */
	memset(t, 0, offsetof(struct pty, buf));
	t->blen = 0;
	t->hup = t->gone = t->notctty = 0;
	escf_init(&t->esc);
	t->master = t->sfd = t->term = t->in = t->out = -1;
	t->ctty = -1;
	t->fg = getpgrp();
	for (i = 2; i >= 0; i--)
		if ((t->on_slave[i] = isatty(i)))
			t->term = i;
	if (t->term >= 0) {
		t->in = t->on_slave[0] ? 0 : -1;
		t->out = t->on_slave[1] ? 1 : t->on_slave[2] ? 2 : writable(0) ? 0 : -1;
	} else {
		/* stdin, stdout and stderr elsewhere, the user's terminal still
		 * there (/dev/tty): the agent gets a pty of its own all the
		 * same, nothing relayed either way, or it could open the
		 * user's and print a prompt there */
		t->ctty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (t->ctty < 0)
			return 0;	/* no terminal at all */
		t->term = t->ctty;
	}
	if (tcgetattr(t->term, &t->saved) < 0)
		goto fail;
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0)
		goto fail;
	if (grantpt(t->master) < 0 || unlockpt(t->master) < 0 ||
	    ptsname_r(t->master, t->slave, sizeof t->slave) != 0)
		goto fail;
	t->sfd = open(t->slave, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	if (t->sfd < 0)
		goto fail;
	/* the agent's terminal starts as the user's: same modes, same size */
	(void)tcsetattr(t->master, TCSANOW, &t->saved);
	pty_winsize(t);
	fl = fcntl(t->master, F_GETFL);
	if (fl < 0 || fcntl(t->master, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	return 1;
fail:
	i = errno;
	if (t->sfd >= 0)
		close(t->sfd);
	if (t->master >= 0)
		close(t->master);
	if (t->ctty >= 0)
		close(t->ctty);
	t->master = t->sfd = t->ctty = -1;
	return errno = i, -1;
}

int
pty_fg(struct pty *t)
{
	pid_t p;

	if (t->notctty)
		return 1;
	p = tcgetpgrp(t->term);
	/* ENOTTY: not keeper's controlling terminal (keeper is in a session
	 * of its own), which it cannot become (every open is O_NOCTTY): no
	 * job control to follow, and no need to ask again on every key */
	if (p < 0 && errno == ENOTTY)
		t->notctty = 1;
	/* -1: the terminal is gone (hung up): reading it says so */
	return p < 0 || p == t->fg;
}

void
pty_raw(struct pty *t, int out)
{
	struct termios r;
	int to = out ? 2 : 1;

	if (t->master < 0 || t->raw >= to || t->in < 0 || !pty_fg(t))
		return;
	if (!t->raw && tcgetattr(t->term, &t->saved) < 0)
		return;
	r = t->saved;
	cfmakeraw(&r);
	r.c_cc[VMIN] = 1;
	r.c_cc[VTIME] = 0;
	/* held (out 0): what is written to it still processed as before
	 * (a newline its carriage return too) */
	if (!out)
		r.c_oflag = t->saved.c_oflag;
	if (tcsetattr(t->term, TCSADRAIN, &r) == 0)
		t->raw = to;
}

void
pty_restore(struct pty *t)
{
	if (!t->raw)
		return;
	(void)tcsetattr(t->term, TCSADRAIN, &t->saved);
	t->raw = 0;
}

void
pty_winsize(const struct pty *t)
{
	struct winsize ws;

	if (t->master >= 0 && ioctl(t->term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(t->master, TIOCSWINSZ, &ws);
}

/* What the agent printed, filtered, to the user. A read shorter than the
 * buffer took all there was: back to poll, which says when there is more
 * (a read to EAGAIN cost a system call per keystroke's echo); all, to
 * EAGAIN, only for the last word (pty_close). */
static int
from_agent(struct pty *t, int all)
{
	static char b[16384], f[sizeof b + ESCF_MAX_SEQ];
	ssize_t n;

	for (;;) {
		n = read(t->master, b, sizeof b);
		if (n > 0) {
			size_t k = escf_run(&t->esc, b, (size_t)n, f);
			if (t->out >= 0 && k > 0)
				(void)fd_write_all(t->out, f, k);
			if ((size_t)n < sizeof b && !all)
				return 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		t->hup = 1;	/* EIO: every pts descriptor is closed */
		return -1;
	}
}

int
pty_from_agent(struct pty *t)
{
	return from_agent(t, 0);
}

int
pty_to_agent(struct pty *t)
{
	ssize_t n;

	if (t->blen == 0 && t->in >= 0) {
		n = read(t->in, t->buf, sizeof t->buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return 0;
		if (n <= 0) {
			/* a terminal reads EOF or EIO only once hung up (raw: ^D
			 * is a byte): nothing more to relay, and nobody to
			 * answer the agent (keeper.c ends the attempt) */
			t->in = -1;
			t->gone = 1;
			return 0;
		}
		t->blen = (size_t)n;
	}
	while (t->blen > 0) {
		n = write(t->master, t->buf, t->blen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;	/* the agent is not reading: keep the rest */
		if (n < 0) {
			t->blen = 0;
			return -1;
		}
		memmove(t->buf, t->buf + n, t->blen - (size_t)n);
		t->blen -= (size_t)n;
	}
	return 0;
}

void
pty_close(struct pty *t)
{
	if (t->master < 0)
		return;
	if (!t->hup)
		(void)from_agent(t, 1);
	pty_restore(t);
	close(t->sfd);
	close(t->master);
	if (t->ctty >= 0)
		close(t->ctty);
	t->master = t->sfd = t->ctty = -1;
}
