/* runfiles: see runfiles.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "argv.h"
#include "fdio.h"
#include "msg.h"
#include "proctree.h"
#include "runfiles.h"
#include "runrules.h"

enum { REPORT_MAX = 1 << 20 };	/* bytes of the report corral reads */

static void
cant(const struct runfiles *rf)
{
	msg_warn("unable to look for files that run code in %s", rf->root);
}

void
runfiles_start(struct runfiles *rf, const struct plan *pl, const char *root, char *const senv[])
{
	struct argv a = { 0 };
	int p[2], r;

	rf->w.pid = rf->w.out = -1;
	rf->go = -1;
	rf->kept = 0;
	snprintf(rf->root, sizeof rf->root, "%s", root);
	if (pipe2(p, O_CLOEXEC) < 0) {
		msg_warn_sys("unable to look for files that run code in %s (pipe)", root);
		rf->root[0] = '\0';
		return;
	}
	r = step_watch(pl, root, &a) < 0 ? -1 : spawn_start_in(a.v, senv, p[0], SPAWN_CAPTURE, &rf->w);
	av_free(&a);
	close(p[0]);
	if (r < 0) {
		msg_warn_sys("unable to run runfiles watch");
		close(p[1]);
		rf->w.pid = -1;
		rf->root[0] = '\0';
		return;
	}
	rf->go = p[1];
	/* a killed keeper's leftovers are swept (wait.c), a browser's too:
	 * not this, which holds the snapshot */
	(void)proc_sweep_keep(rf->w.pid);
}

/* the watch ended or not wanted: its input closed, reaped (its output
 * read into out when out is not NULL); the wait status */
static int
collect(struct runfiles *rf, char *out, size_t n)
{
	int ws;

	if (rf->go >= 0)
		close(rf->go);
	rf->go = -1;
	ws = spawn_collect(&rf->w, out, n);
	proc_sweep_unkeep(rf->w.pid);
	rf->w.pid = -1;
	return ws;
}

void
runfiles_keep(struct runfiles *rf, const struct plan *pl)
{
	char line[8];
	size_t got = 0;
	ssize_t n;

	(void)pl;
	if (rf->w.pid <= 0)
		return;
	/* "taken\n", and nothing more before its go byte */
	while (got < sizeof line && ((n = read(rf->w.out, line + got, sizeof line - got)) > 0 ||
	    (n < 0 && errno == EINTR)))
		if (n > 0 && memchr(line + got, '\n', (size_t)n) != NULL) {
			got += (size_t)n;
			break;
		} else if (n > 0) {
			got += (size_t)n;
		}
	if (got == 6 && memcmp(line, "taken\n", 6) == 0) {
		rf->kept = 1;
		return;
	}
	(void)collect(rf, NULL, 0);	/* it said why */
	cant(rf);
	rf->root[0] = '\0';
}

void
runfiles_report_start(struct runfiles *rf, const struct plan *pl, char *const senv[], int quiet)
{
	(void)pl;
	(void)senv;
	(void)quiet;
	if (!rf->kept || rf->go < 0)
		return;
	/* the go byte: every process of the attempt has ended. A watch that
	 * has ended reads nothing: its EPIPE and SIGPIPE are taken
	 * (fd_write_nopipe), never corral's end; its status says. */
	(void)fd_write_nopipe(rf->go, "g", 1);
	close(rf->go);
	rf->go = -1;
}

int
runfiles_report_end(struct runfiles *rf, struct audit *au, int quiet)
{
	/* in the zeroed bss: only the pages the report fills are touched
	 * (malloc's mapping was an mmap and a munmap at every run's end) */
	static char out[REPORT_MAX];
	struct argv lines = { 0 };
	char *l, *nl;
	int ws, trunc = 0, k;

	if (rf->w.pid <= 0 || !rf->kept)
		return 0;
	rf->kept = 0;
	ws = collect(rf, out, sizeof out);
	/* 0: nothing, 1: what it names, one a line ("partial" last when a
	 * bound was reached); anything else is a failure, said */
	if (ws < 0 || (wait_code(ws) != 0 && wait_code(ws) != 1)) {
		if (!quiet)
			cant(rf);
		return 0;
	}
	for (l = out; *l; l = nl) {
		nl = l + strcspn(l, "\n");
		if (*nl)
			*nl++ = '\0';
		if (strcmp(l, "partial") == 0)
			trunc = 1;
		else if (*l) {
			/* escaped by the step; a control character never reaches the terminal */
			for (char *c = l; *c; c++)
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					*c = '?';
			av_push(&lines, l);
		}
	}
	k = (int)lines.n;
	if (k || trunc) {
		audit_start(au, "run-files");
		audit_str(au, "root", rf->root);
		audit_strs(au, "files", lines.v, lines.n);
		audit_int(au, "partial", trunc);
		audit_end(au);
	}
	if (!quiet && k) {
		msg_warn("this run created or changed %d file%s in %s that run%s code on your machine:",
		    k, k == 1 ? "" : "s", rf->root, k == 1 ? "s" : "");
		for (size_t i = 0; i < lines.n; i++)
			fprintf(stderr, "corral:   %s\n", lines.v[i]);
	}
	if (!quiet && trunc)
		msg_warn("%s holds more than %d entries or a path longer than %d bytes: files that run code were looked for in part",
		    rf->root, RUNRULES_WALK_MAX, PATH_MAX);
	av_free(&lines);
	return k;
}

void
runfiles_free(struct runfiles *rf)
{
	if (rf->w.pid > 0) {
		(void)kill(rf->w.pid, SIGKILL);
		(void)collect(rf, NULL, 0);
	}
	if (rf->go > 2)		/* 0: never started (the state is zeroed) */
		close(rf->go);
	rf->go = -1;
	rf->kept = 0;
}
