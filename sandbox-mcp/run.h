/* run: start a program with an explicit environment, capture its output
 * (bounded), end its whole process tree. I/O. */
#ifndef SBX_RUN_H
#define SBX_RUN_H
#include <stddef.h>
#include <stdint.h>

#include "rpc.h"

struct limits;

struct run_opt {
	const char *cwd;		/* NULL: the server's */
	int64_t timeout_ms;		/* 0: none */
	size_t max_out;			/* bytes kept of stdout and of stderr each */
	const char *keeper;		/* keeper(1)'s path: it runs the program, in a
					   cgroup of its own where one can be made
					   here, and ends its whole tree; NULL: a
					   plain child, waited for */
	uint64_t fsize;			/* RLIMIT_FSIZE for the child, 0: unchanged */
	const struct limits *lim;	/* with keeper: memory and processes bounded
					   as corral bounds an attempt (lib/reslimit.c:
					   the tree's cgroup controllers, else
					   rlimits); NULL: none */
	const char *input;		/* stdin bytes (NULL: /dev/null) */
	size_t inputn;
	int infd, outfd;		/* > 0: stdin from, stdout into this descriptor instead */
};

struct run_res {
	int status;			/* wait status */
	int timed_out;
	struct buf out, err;		/* what was kept */
	uint64_t out_bytes, err_bytes;	/* what was written in all */
	int cgroup;			/* its tree was ended through a cgroup */
	int limits_refused;		/* o->lim cannot be enforced here: not run */
};

/* Run argv[0] (absolute path) with envp. Returns 0 when it ran (see
 * r->status), -1 with errno when it could not be started. */
int run_prog(char *const argv[], char *const envp[], const struct run_opt *o, struct run_res *r);
void run_res_free(struct run_res *r);
/* Make this process the subreaper of everything it starts, so the sweep
 * finds what a killed keeper left. */
int run_init(void);
/* The exit code a wait status stands for (128+N for signal N). */
int run_code(int ws);

#endif
