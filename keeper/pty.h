/* pty: the agent's own terminal. When keeper's standard input, output or
 * error is a terminal (or none is, but keeper has a controlling terminal:
 * then nothing is relayed), keeper keeps the user's terminal to itself,
 * makes a fresh pty pair, gives the program the pts (confine --ctty grants
 * that one node, not /dev/pts), and relays: the user's keys to the agent's
 * terminal, its output back, the window size on SIGWINCH (TIOCSWINSZ). The
 * user's terminal is raw during the run, so ^C and ^Z reach the agent's
 * foreground process group through its own terminal's line discipline; it
 * is restored on every exit path keeper lives through (and while keeper is
 * stopped). */
#ifndef CORRAL_PTY_H
#define CORRAL_PTY_H
#include <sys/types.h>
#include <termios.h>

#include "escfilter.h"

struct pty {
	int master;		/* -1: no terminal, no relay */
	char slave[64];		/* /dev/pts/N */
	int sfd;		/* corral holds it open too: the master never
				   reads EIO before the agent has opened it */
	int on_slave[3];	/* 1: that standard fd is the user's terminal */
	int term;		/* the user's terminal (for modes and size) */
	int ctty;		/* /dev/tty when no standard fd is the terminal
				   (term then; nothing relayed), else -1 */
	int in, out;		/* relay from in, to out (-1: none) */
	int raw;		/* the user's terminal is raw now: 1 its input
				   (pty_raw out 0), 2 its output too */
	pid_t fg;		/* keeper's process group when it started (its
				   caller's job): the terminal is ours to read
				   and make raw while that group is in front */
	struct termios saved;	/* its modes before */
	char buf[4096];		/* keys not yet taken by the agent's terminal */
	size_t blen;
	int hup;		/* the agent's side is closed */
	int gone;		/* the user's terminal hung up (EOF or EIO) */
	int notctty;		/* term is not keeper's controlling terminal */
	struct escfilter esc;	/* what it prints, without clipboard writes and answer-backs */
};

/* 1: a pair was made (the user's terminal found), 0: no terminal, -1 error. */
int pty_open(struct pty *t);
/* Is the job keeper started in the user's terminal's foreground? */
int pty_fg(struct pty *t);
/* Raw mode on the user's terminal when keeper's job is in its foreground:
 * its input (keys reach the agent as they are); out 0 leaves its output
 * processing as it was (keeper --gate while the program is held: what
 * others say meanwhile reads as usual), out 1 makes that raw too. */
void pty_raw(struct pty *t, int out);
/* The user's modes back. */
void pty_restore(struct pty *t);
/* The user's window size onto the agent's terminal. */
void pty_winsize(const struct pty *t);
/* Relay what is ready: poll events for master and in. -1: master hung up. */
int pty_from_agent(struct pty *t);
int pty_to_agent(struct pty *t);
/* Whatever the agent's side still holds, then close. */
void pty_close(struct pty *t);

#endif
