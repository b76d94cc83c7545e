/* session-store: project environments. STORE/env/PROJECT holds NAME=VALUE
 * lines (env-filter's -F format), mode 0600; values come in on stdin, never
 * argv; list prints names only; release hands the whole file to one attempt
 * at most once (lib/store.c's marker, as for credentials). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "ss.h"
#include "store.h"

enum {
	ENV_NAME_MAX = 128,
	ENV_LINE_MAX = 32768,		/* env-filter's line bound */
	ENV_PROJECT_MAX = 256 << 10,	/* one project's file, bytes */
	ENV_VARS_MAX = 256,		/* variables in one project */
};

int
ss_env_name_ok(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= ENV_NAME_MAX || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* PROJECT [NAME]: both checked; 0, or EXIT_USAGE after a message. */
static int
env_args(int argc, char **argv, const char *use, const char **proj, const char **name)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	int c;

	OPTLOOP(opts)
		return ss_badopt(c, argc, argv);
	if (argc - optind != (name ? 2 : 1)) {
		msg_usage("%s", use);
		return EXIT_USAGE;
	}
	*proj = argv[optind];
	if (!prof_name_ok(*proj)) {
		msg_fatal("bad project name \"%.64s\" (want %s)", *proj, PROF_NAME_RULE);
		return EXIT_USAGE;
	}
	if (name && !ss_env_name_ok(*name = argv[optind + 1])) {
		msg_fatal("bad variable name \"%.64s\" (want a letter or _, then letters, digits or _, at most %d)",
		    *name, ENV_NAME_MAX);
		return EXIT_USAGE;
	}
	return 0;
}

/* env/PROJECT into *buf (NULL, 0 when there is none). 0, or the exit status. */
static int
env_read(int efd, const char *proj, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (file_read_bounded(efd, proj, ENV_PROJECT_MAX, buf, len) < 0) {
		if (errno == ENOENT)
			return 0;
		msg_fatal_sys("project %s", proj);
		return EXIT_USAGE;
	}
	return 0;
}

/* Where NAME's line starts in buf (and its length, newline included), or -1. */
static long
env_find(const char *buf, size_t len, const char *name, size_t *ll)
{
	size_t nl = strlen(name), off = 0;

	while (off < len) {
		const char *e = memchr(buf + off, '\n', len - off);
		size_t l = e ? (size_t)(e - (buf + off)) + 1 : len - off;
		if (l > nl && memcmp(buf + off, name, nl) == 0 && buf[off + nl] == '=') {
			*ll = l;
			return (long)off;
		}
		off += l;
	}
	return -1;
}

static void
wipe(char *buf, size_t len)
{
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
}

/* Lock, open env/, read the project: the start of set and rm. */
static int
env_open(struct ss *s, const char *proj, int *efd, int *lk, char **buf, size_t *len)
{
	int r;

	*lk = -1;
	if ((*efd = ss_open_sub(s, "env")) < 0)
		return -*efd;
	if ((*lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		close(*efd);
		return EXIT_USAGE;
	}
	if ((r = env_read(*efd, proj, buf, len)) != 0) {
		close(*lk);
		close(*efd);
	}
	return r;
}

static int
env_store(int efd, const char *proj, const char *buf, size_t len)
{
	if ((len == 0 ? unlinkat(efd, proj, 0) : file_write_atomic(efd, proj, buf, len, 0600)) < 0) {
		msg_fatal_sys("unable to store project %s", proj);
		return EXIT_USAGE;
	}
	return 0;
}

/* env-set PROJECT NAME < VALUE: one line, a final newline dropped. */
int
ss_env_set(struct ss *s, int argc, char **argv)
{
	const char *proj, *name;
	char *val = NULL, *buf = NULL, *nbuf = NULL;
	size_t vlen, len, ll = 0, nlen = 0, nvars = 0;
	long at;
	int efd, lk, r;

	if ((r = env_args(argc, argv, "env-set PROJECT NAME < VALUE", &proj, &name)) != 0)
		return r;
	if ((r = ss_read_source(NULL, 0, ENV_LINE_MAX, "the value on stdin", &val, &vlen)) != 0)
		return r;
	if (vlen > 0 && val[vlen - 1] == '\n')
		vlen--;
	if (memchr(val, '\n', vlen) || memchr(val, '\r', vlen) || memchr(val, '\0', vlen)) {
		msg_fatal("the value of %s holds a newline, carriage return or NUL byte: a variable is one line", name);
		wipe(val, vlen);
		return EXIT_NO;
	}
	if (strlen(name) + 1 + vlen >= ENV_LINE_MAX) {
		msg_fatal("the value of %s is too long (a variable is at most %d bytes)", name, ENV_LINE_MAX - 1);
		wipe(val, vlen);
		return EXIT_NO;
	}
	if ((r = env_open(s, proj, &efd, &lk, &buf, &len)) != 0) {
		wipe(val, vlen);
		return r;
	}
	at = env_find(buf, len, name, &ll);
	for (size_t i = 0; i < len; i++)
		nvars += buf[i] == '\n';
	r = EXIT_NO;
	if (at < 0 && nvars >= ENV_VARS_MAX)
		msg_fatal("project %s has %d variables already (at most %d)", proj, ENV_VARS_MAX, ENV_VARS_MAX);
	else if (len - ll + strlen(name) + vlen + 2 > ENV_PROJECT_MAX)
		msg_fatal("project %s would be larger than %d bytes", proj, ENV_PROJECT_MAX);
	else if ((nbuf = malloc(len + strlen(name) + vlen + 2)) == NULL)
		msg_fatal("out of memory"), r = EXIT_USAGE;
	else {
		/* the other lines as they were, this one last */
		size_t k = at < 0 ? len : (size_t)at;
		if (k > 0)	/* buf is NULL for a project not stored yet */
			memcpy(nbuf, buf, k);
		if (at >= 0) {
			memcpy(nbuf + k, buf + at + ll, len - (size_t)at - ll);
			k += len - (size_t)at - ll;
		}
		k += (size_t)sprintf(nbuf + k, "%s=", name);
		if (vlen > 0)
			memcpy(nbuf + k, val, vlen);
		nbuf[k + vlen] = '\n';
		nlen = k + vlen + 1;
		r = env_store(efd, proj, nbuf, nlen);
	}
	close(lk);
	close(efd);
	wipe(val, vlen);
	wipe(buf, len);
	wipe(nbuf, nlen);
	return r;
}

/* env-rm PROJECT NAME */
int
ss_env_rm(struct ss *s, int argc, char **argv)
{
	const char *proj, *name;
	char *buf = NULL;
	size_t len, ll;
	long at;
	int efd, lk, r;

	if ((r = env_args(argc, argv, "env-rm PROJECT NAME", &proj, &name)) != 0)
		return r;
	if ((r = env_open(s, proj, &efd, &lk, &buf, &len)) != 0)
		return r;
	if ((at = env_find(buf, len, name, &ll)) < 0) {
		msg_fatal("project %s has no variable %s", proj, name);
		r = EXIT_NO;
	} else {
		memmove(buf + at, buf + at + ll, len - (size_t)at - ll);
		r = env_store(efd, proj, buf, len - ll);
	}
	close(lk);
	close(efd);
	wipe(buf, len);
	return r;
}

/* env-list PROJECT: the names, one a line; never a value. */
int
ss_env_list(struct ss *s, int argc, char **argv)
{
	const char *proj;
	char *buf = NULL;
	size_t len, off = 0;
	int efd, r;

	if ((r = env_args(argc, argv, "env-list PROJECT", &proj, NULL)) != 0)
		return r;
	if ((efd = ss_open_sub(s, "env")) < 0)
		return -efd;
	r = env_read(efd, proj, &buf, &len);
	close(efd);
	while (r == 0 && off < len) {
		const char *e = memchr(buf + off, '\n', len - off);
		size_t l = e ? (size_t)(e - (buf + off)) + 1 : len - off;
		printf("%.*s\n", (int)strcspn(buf + off, "=\n"), buf + off);
		off += l;
	}
	wipe(buf, len);
	if (r == 0 && fflush(stdout) != 0) {
		msg_fatal_sys("unable to write to standard output");
		r = EXIT_USAGE;
	}
	return r;
}

/* env-release PROJECT --attempt ID [--fd N]: at most once per attempt. */
int
ss_env_release(struct ss *s, int argc, char **argv)
{
	return ss_release_cmd(s, argc, argv, 1);
}
