/* keeper: the attempt's processes. It makes the attempt's cgroup (or
 * takes one), applies the limits, becomes a child subreaper, gives the
 * program a terminal of its own and relays it (pty.h), starts the program
 * as its child and, when that child has ended (or the wall clock passed,
 * or keeper's parent died), ends every process of the attempt: the
 * cgroup whole, then the subreaper's sweep (proctree.h), bounded. Its
 * status is the program's (124: the wall clock). */
#ifndef CORRAL_KEEPER_H
#define CORRAL_KEEPER_H
#include <stdint.h>

#include "escfilter.h"
#include "reslimit.h"

struct keeper_opts {
	struct limits lim;		/* wall_seconds aside: wall_ms */
	uint64_t wall_ms;		/* 0: none */
	const char *cgroup;		/* --cgroup DIR: taken, not made */
	const char *dir;		/* --chdir DIR, or NULL */
	int pty;			/* --pty */
	int allow_osc[ESCF_MAX_ALLOW];	/* --allow-osc N */
	int nallow_osc;
	int pid_fd;			/* --pid-fd FD, or -1 */
	int gate;			/* --gate FD, or -1 */
	char **argv;			/* PROG [ARG...] */
};

/* Parse keeper's command line into *o. 0: run; 1: --help or --version
 * printed (*status set); -1: usage or value error (reported, *status set). */
int keeper_opts_parse(int argc, char **argv, struct keeper_opts *o, int *status);
/* "1", "0.5", "2.250": seconds, at most three decimals, into ms. Pure.
 * 0 or -1 (EINVAL, ERANGE: 0, or over a year). */
int keeper_wall_parse(const char *s, uint64_t *ms);
/* Run it all; returns keeper's exit status. */
int keeper_run(const struct keeper_opts *o, char **envp);

#endif
