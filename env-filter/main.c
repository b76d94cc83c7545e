/* env-filter: build a fresh environment from layers, then exec PROG with it. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execenv.h"
#include "fdio.h"
#include "layers.h"
#include "msg.h"
#include "private.h"
#include "num.h"
#include "version.h"

extern char **environ;

static const char usage[] =
    "env-filter [--baseline] [-k NAME] [-s NAME=VALUE] [-f FILE] [-F FD] "
    "[-p NAME=VALUE] [--proxy PORT] [--explain | --print0] [--] PROG [ARG...]";

static const char help[] =
    "\n\nBuild a fresh environment from layers, then exec PROG with exactly it.\n"
    "PROG is looked up in the new environment's PATH. Layers apply in order;\n"
    "a later one wins, and pins win over all.\n"
    "\n"
    "  --baseline            keep PATH HOME USER LOGNAME SHELL TMPDIR LANG LC_ALL\n"
    "                        LC_CTYPE TZ TERM and the CA-bundle variables\n"
    "  -k, --keep NAME       keep NAME from the caller\n"
    "  -s, --set NAME=VALUE  set NAME\n"
    "  -f, --file FILE       NAME=VALUE lines from FILE (yours, mode 0600 or stricter)\n"
    "  -F, --fd FD           NAME=VALUE lines from descriptor FD (closed after)\n"
    "  -p, --pin NAME=VALUE  set NAME, over every other layer\n"
    "      --proxy PORT      pin HTTP_PROXY, HTTPS_PROXY, http_proxy, https_proxy\n"
    "                        to http://127.0.0.1:PORT and NO_PROXY, no_proxy empty\n"
    "      --explain         print each name and the layer that set it; no exec\n"
    "      --print0          print the environment NUL-separated; no exec\n"
    "  -h, --help            this help\n"
    "      --version         print the version\n"
    "\n"
    "Values kept from the caller that look like secrets are dropped with a\n"
    "warning. Loader, proxy and other code-injecting variables never pass\n"
    "(but --proxy's, which name only a loopback port).\n"
    "Exit: PROG's status; 125 env-filter failed; 126 PROG not executable;\n"
    "127 PROG not found.\n";

enum { OPT_BASELINE = 256, OPT_EXPLAIN, OPT_PRINT0, OPT_VERSION, OPT_PROXY };

static const struct option longopts[] = {
	{ "baseline", no_argument, NULL, OPT_BASELINE },
	{ "proxy", required_argument, NULL, OPT_PROXY },
	{ "keep", required_argument, NULL, 'k' },
	{ "set", required_argument, NULL, 's' },
	{ "file", required_argument, NULL, 'f' },
	{ "fd", required_argument, NULL, 'F' },
	{ "pin", required_argument, NULL, 'p' },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "print0", no_argument, NULL, OPT_PRINT0 },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* The buffers the new environment points into: they stay reachable from a
 * static list until exec or exit (no copies, and no leak reports). */
struct chunk {
	struct chunk *next;
	char data[];
};

static void *
alloc_kept(struct chunk **kept, size_t n)
{
	struct chunk *c = malloc(sizeof *c + n);

	if (c == NULL)
		return NULL;
	c->next = *kept;
	*kept = c;
	return c->data;
}

/* One line naming where the error is and what; never a value. */
static int
layer_fail(const char *where, size_t line, const struct ef_err *err)
{
	char at[300];

	if (line)
		snprintf(at, sizeof at, "%s:%zu", where, line);
	else
		snprintf(at, sizeof at, "%s", where);
	if (err->code == EF_E_DENIED) {
		msg_fatal("%s: %.*s never passes: %s", at, (int)err->nlen, err->name, err->why);
		msg_hint("the never-pass list is in env-filter(1); no option lets it through");
	} else if (err->code == EF_E_PINNED)
		msg_fatal("%s: %.*s pinned twice", at, (int)err->nlen, err->name);
	else
		msg_fatal("%s: %s", at, ef_strerror(err->code));
	return EXIT_CHAIN_FAIL;
}

/* -f: a regular file, not a symlink, the caller's own, private. */
static int
read_file(const char *path, struct chunk **kept, char **buf, size_t *len)
{
	char why[128];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ELOOP) {
		msg_fatal("%s: is a symbolic link", path);
		return -1;
	}
	if (fd < 0) {
		msg_fatal_sys("unable to open %s", path);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		msg_fatal_sys("unable to stat %s", path);
		goto fail;
	}
	if (private_check(&st, why, sizeof why) < 0) {
		msg_fatal("%s: %s", path, why);
		if (S_ISREG(st.st_mode) && st.st_uid == geteuid())
			msg_hint("chmod 600 %s", path);
		goto fail;
	}
	if ((size_t)st.st_size > EF_MAX_TEXT) {
		msg_fatal("%s: larger than %d bytes", path, EF_MAX_TEXT);
		goto fail;
	}
	*buf = alloc_kept(kept, (size_t)st.st_size + 2);
	if (*buf == NULL) {
		msg_fatal_sys("%s", path);
		goto fail;
	}
	/* read what is there now, bounded by the size checked above */
	n = fd_read_bounded(fd, *buf, (size_t)st.st_size + 1);
	if (n < 0 || (size_t)n > (size_t)st.st_size) {
		if (n < 0)
			msg_fatal_sys("unable to read %s", path);
		else
			msg_fatal("%s: changed while read", path);
		goto fail;
	}
	close(fd);
	*len = (size_t)n;
	return 0;
fail:
	close(fd);
	return -1;
}

/* -F: read to EOF, then close, so PROG does not inherit it (0-2 are
 * pointed at /dev/null instead, so the next open cannot take their place).
 * *src gets "fd N", the name errors and --explain use. */
static int
read_fd(const char *arg, struct chunk **kept, char **src, char **buf, size_t *len)
{
	ssize_t n;
	int fd;

	if (num_parse_fd(arg, &fd) < 0) {
		msg_fatal("-F %s: not a descriptor number", arg);
		return -1;
	}
	*src = alloc_kept(kept, 24);
	*buf = alloc_kept(kept, EF_MAX_TEXT + 1);
	if (*src == NULL || *buf == NULL) {
		msg_fatal_sys("fd %d", fd);
		return -1;
	}
	n = fd_read_bounded(fd, *buf, EF_MAX_TEXT);
	if (n < 0) {
		if (errno == EFBIG)
			msg_fatal("fd %d: more than %d bytes", fd, EF_MAX_TEXT);
		else
			msg_fatal_sys("unable to read fd %d", fd);
		return -1;
	}
	if (fd > 2)
		close(fd);
	else {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul < 0 || dup2(nul, fd) < 0) {
			msg_fatal_sys("unable to put /dev/null on fd %d", fd);
			return -1;
		}
		close(nul);
	}
	snprintf(*src, 24, "fd %d", fd);
	*len = (size_t)n;
	return 0;
}

static int
print_env(const struct ef_env *env, int explain)
{
	char line[4400];	/* a name, "file", a path of PATH_MAX, a line number */
	const struct ef_var *v;
	size_t i;
	int n;

	for (i = 0; i < env->n; i++) {
		v = &env->var[i];
		if (!explain) {
			if (fd_write_all(1, v->kv, strlen(v->kv) + 1) < 0)
				goto fail;
			continue;
		}
		if (v->src)	/* "file PATH:LINE" or "fd N:LINE" (src is "fd N") */
			n = snprintf(line, sizeof line, "%.*s\t%s%s:%zu\n", (int)v->nlen,
			    v->kv, v->layer == EF_FD ? "" : "file ", v->src, v->line);
		else
			n = snprintf(line, sizeof line, "%.*s\t%s\n", (int)v->nlen, v->kv,
			    ef_layer_name(v->layer));
		if (n < 0 || (size_t)n >= sizeof line)
			n = snprintf(line, sizeof line, "%.*s\t%s\n",	/* the name only */
			    (int)(v->nlen < 256 ? v->nlen : 256), v->kv, ef_layer_name(v->layer));
		if (fd_write_all(1, line, (size_t)n) < 0)
			goto fail;
	}
	return 0;
fail:
	msg_fatal_sys("unable to write to standard output");
	return EXIT_CHAIN_FAIL;
}

int
main(int argc, char *argv[])
{
	static struct ef_env envs;	/* static: 80 KiB, off the stack */
	static struct chunk *kept;
	struct ef_env *env = &envs;
	struct ef_err err;
	char **envp, *buf, *src;
	size_t len, i;
	int c, mode = 0;

	msg_init(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hk:s:f:F:p:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BASELINE:
			if (ef_baseline(env, environ, &err) < 0)
				return layer_fail("--baseline", 0, &err);
			break;
		case 'k':
			if (ef_keep(env, environ, optarg, &err) < 0)
				return layer_fail("-k", 0, &err);
			break;
		case 's':
		case 'p':
			if (ef_set(env, optarg, c == 's' ? EF_SET : EF_PIN, &err) < 0)
				return layer_fail(c == 's' ? "-s" : "-p", 0, &err);
			break;
		case OPT_PROXY:
			if (ef_proxy(env, optarg, &err) < 0)
				return layer_fail("--proxy", 0, &err);
			break;
		case 'f':
			if (read_file(optarg, &kept, &buf, &len) < 0)
				return EXIT_CHAIN_FAIL;
			if (ef_text(env, buf, len, EF_FILE, optarg, &err) < 0)
				return layer_fail(optarg, err.line, &err);
			break;
		case 'F':
			if (read_fd(optarg, &kept, &src, &buf, &len) < 0)
				return EXIT_CHAIN_FAIL;
			if (ef_text(env, buf, len, EF_FD, src, &err) < 0)
				return layer_fail(src, err.line, &err);
			break;
		case OPT_EXPLAIN:
		case OPT_PRINT0:
			if (mode && mode != c) {
				msg_fatal("--explain and --print0 exclude each other");
				return EXIT_CHAIN_FAIL;
			}
			mode = c;
			break;
		case 'h':
			printf("usage: %s%s", usage, help);
			return msg_stdout_done() == 0 ? 0 : EXIT_CHAIN_FAIL;
		case OPT_VERSION:
			printf("env-filter %s\n", CORRAL_VERSION);
			return msg_stdout_done() == 0 ? 0 : EXIT_CHAIN_FAIL;
		default:
			msg_badopt(c, argc, argv, NULL);
			return EXIT_CHAIN_FAIL;
		}
	}
	if (ef_finish(env, &err) < 0)
		return layer_fail("-p", 0, &err);
	for (i = 0; i < env->ndrop && i < EF_MAX_DROP; i++)
		msg_warn("%.*s dropped: its value has the shape of a secret (%s)", (int)env->drop[i].nlen,
		    env->drop[i].name, env->drop[i].shape);
	if (env->ndrop)
		msg_hint("pass a credential the program needs with -f FILE or -F FD");
	if (mode)
		return print_env(env, mode == OPT_EXPLAIN);
	if (optind >= argc) {
		msg_usage("%s", usage);
		return EXIT_CHAIN_FAIL;
	}
	envp = alloc_kept(&kept, (env->n + 1) * sizeof *envp);
	if (envp == NULL) {
		msg_fatal_sys("out of memory");
		return EXIT_CHAIN_FAIL;
	}
	for (i = 0; i < env->n; i++)
		envp[i] = (char *)env->var[i].kv;
	envp[env->n] = NULL;
	exec_env(argv + optind, envp);
	c = errno;
	msg_fatal_sys("unable to run %s", argv[optind]);
	if (c == ENOENT && strchr(argv[optind], '/') == NULL)
		msg_hint("PROG is looked up in the new environment's PATH");
	return exec_status(c);
}
