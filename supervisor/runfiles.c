/* runfiles: see runfiles.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "argv.h"
#include "fdio.h"
#include "msg.h"
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
	int r;

	rf->snap.pid = rf->snap.out = -1;
	rf->kept = 0;
	snprintf(rf->root, sizeof rf->root, "%s", root);
	/* its output held in memory until the attempt's directory exists
	 * (home-stage create runs meanwhile) */
	if ((rf->mem = memfd_create("runfiles", MFD_CLOEXEC)) < 0) {
		msg_warn_sys("unable to look for files that run code in %s (memfd_create)", root);
		rf->root[0] = '\0';
		return;
	}
	r = step_snapshot(pl, root, &a) < 0 ? -1 : spawn_start_io(a.v, senv, -1, rf->mem, &rf->snap);
	av_free(&a);
	if (r < 0) {
		msg_warn_sys("unable to run runfiles snapshot");
		close(rf->mem);
		rf->mem = -1;
		rf->root[0] = '\0';
	}
}

void
runfiles_keep(struct runfiles *rf, const struct plan *pl)
{
	char buf[65536];
	ssize_t n;
	int ws, fd = -1, dfd = -1, ok = 0;

	if (rf->snap.pid <= 0)
		return;
	ws = spawn_collect(&rf->snap, NULL, 0);
	rf->snap.pid = -1;
	if (ws < 0 || wait_code(ws) != 0)
		goto out;
	if ((dfd = open(pl->attempt_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (fd = openat(dfd, "runfiles", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
	    lseek(rf->mem, 0, SEEK_SET) < 0) {
		msg_warn_sys("unable to keep the snapshot of %s in %s/runfiles", rf->root, pl->attempt_dir);
		goto out;
	}
	while ((n = read(rf->mem, buf, sizeof buf)) > 0)
		if (fd_write_all(fd, buf, (size_t)n) < 0)
			break;
	ok = n == 0;
	if (!ok)
		msg_warn_sys("unable to keep the snapshot of %s in %s/runfiles", rf->root, pl->attempt_dir);
out:
	if (!ok && ws >= 0 && wait_code(ws) != 0)
		cant(rf);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (rf->mem > 2)
		close(rf->mem);
	rf->mem = -1;
	rf->kept = ok;
	if (!ok)
		rf->root[0] = '\0';
}

void
runfiles_report_start(struct runfiles *rf, const struct plan *pl, char *const senv[], int quiet)
{
	struct argv a = { 0 };
	char path[PATH_MAX + 16];
	int in;

	rf->rep.pid = rf->rep.out = -1;
	if (!rf->kept || rf->root[0] == '\0')
		return;
	rf->kept = 0;
	snprintf(path, sizeof path, "%s/runfiles", pl->attempt_dir);
	if ((in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (!quiet)
			msg_warn_sys("unable to look for files that run code in %s (%s)", rf->root, path);
		return;
	}
	if (step_report(pl, rf->root, &a) < 0 || spawn_start_in(a.v, senv, in, SPAWN_CAPTURE, &rf->rep) < 0) {
		rf->rep.pid = -1;
		if (!quiet)
			cant(rf);
	}
	av_free(&a);
	close(in);
}

int
runfiles_report_end(struct runfiles *rf, struct audit *au, int quiet)
{
	struct argv lines = { 0 };
	char *out, *l, *nl;
	int ws, trunc = 0, k;

	if (rf->rep.pid <= 0)
		return 0;
	out = malloc(REPORT_MAX);
	ws = spawn_collect(&rf->rep, out, out ? REPORT_MAX : 0);
	rf->rep.pid = -1;
	/* 0: nothing, 1: what it names, one a line ("partial" last when a
	 * bound was reached); anything else is a failure, said */
	if (out == NULL || ws < 0 || (wait_code(ws) != 0 && wait_code(ws) != 1)) {
		free(out);
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
	free(out);
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
	if (rf->snap.pid > 0)
		(void)spawn_collect(&rf->snap, NULL, 0);
	rf->snap.pid = -1;
	if (rf->rep.pid > 0)
		(void)spawn_collect(&rf->rep, NULL, 0);
	rf->rep.pid = -1;
	if (rf->mem > 2)	/* 0: never started (the state is zeroed) */
		close(rf->mem);
	rf->mem = -1;
	rf->kept = 0;
}
