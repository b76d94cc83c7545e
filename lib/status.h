/* status: the exit statuses shared by the toolkit. */
#ifndef CORRAL_STATUS_H
#define CORRAL_STATUS_H

/* Exit statuses shared by the toolkit (README.md; each program's EXIT STATUS). */
enum {
	EXIT_CHAIN_FAIL = 125,	/* chain-loader's own failure or refusal */
	EXIT_NOEXEC = 126,	/* program found but not executable */
	EXIT_NOTFOUND = 127,	/* program not found */
	EXIT_NO = 1,		/* other commands: no / refused */
	EXIT_USAGE = 2,		/* other commands: usage or system error */
};

/* The exit status a wait status stands for: its code, 128+N for a death
 * by signal N, EXIT_CHAIN_FAIL for anything else (a stopped child). */
int wait_code(int ws);

#endif
