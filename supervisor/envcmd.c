/* corral env: a project's environment values, kept 0600 in the session
 * store (session-store env-*), released to one attempt at most once into
 * env-filter's layer 2 through a pipe. A value never travels in argv: it
 * comes in on stdin (read without echo from a terminal), reaches
 * session-store through a pipe, and the agent's env-filter through another. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "execenv.h"
#include "fdio.h"
#include "msg.h"
#include "projenv.h"
#include "procspawn.h"
#include "stepdir.h"
#include "store.h"

enum {
	ENV_VALUE_MAX = 32767,		/* env-filter's line bound, the name included */
	ENV_RELEASE_MAX = 256 << 10,	/* session-store's bound on one project */
};

/* Names the agent's own layer sets, or that would replace its sign-in or
 * the place its configuration lives: a project value never reaches them. */
static const char *const own_names[] = {
	"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
	"CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
	"OPENAI_API_KEY", "CODEX_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"GOOGLE_APPLICATION_CREDENTIALS", NULL
};

const char *
projenv_own(const char *name, size_t len)
{
	if (len >= 7 && memcmp(name, "CORRAL_", 7) == 0)
		return "corral's own variables";
	for (size_t i = 0; own_names[i]; i++)
		if (strlen(own_names[i]) == len && memcmp(own_names[i], name, len) == 0)
			return i < 6 ? "the agent's own layer sets it for every attempt" :
			    i < 9 ? "the agent's configuration lives where corral puts it" :
			    "the agent's sign-in is the one corral stages";
	return NULL;
}

/* session-store's environment: PATH and what finds the store */
static char **
store_env(char *const envp[], struct argv *e)
{
	static const char *const keep[] = { "HOME", "XDG_STATE_HOME", NULL };
	const char *v;

	av_push(e, "PATH=/usr/bin:/bin");
	for (size_t i = 0; keep[i]; i++)
		if ((v = env_get(envp, keep[i])) != NULL)
			av_pushf(e, "%s=%s", keep[i], v);
	return e->err ? NULL : e->v;
}

/* the path of a step program beside corral */
static int
step_path(const char *prog, char *out, size_t n)
{
	char dir[PATH_MAX];

	if (resolve_stepdir(dir, sizeof dir) < 0 || (size_t)snprintf(out, n, "%s/%s", dir, prog) >= n) {
		msg_fatal_sys("cannot find the step programs (/proc/self/exe)");
		return -1;
	}
	return 0;
}

/* Run session-store ARGS... with stdin from in (-1: /dev/null), stdout
 * shared; its exit status (2 when it could not run). */
int
projenv_store(char *const envp[], int in, const char *const args[])
{
	return projenv_store_fd3(envp, in, -1, args);
}

int
projenv_store_fd3(char *const envp[], int in, int fd3, const char *const args[])
{
	struct argv a = { 0 }, e = { 0 };
	char prog[PATH_MAX + 16], **env;
	struct spawned sp;
	int ws, r;

	if (step_path("session-store", prog, sizeof prog) < 0)
		return EXIT_USAGE;
	av_push(&a, prog);
	for (size_t i = 0; args[i]; i++)
		av_push(&a, args[i]);
	if (a.err || (env = store_env(envp, &e)) == NULL) {
		av_free(&a);
		av_free(&e);
		msg_fatal("out of memory");
		return EXIT_USAGE;
	}
	ws = spawn_start_fd3(a.v, env, in, fd3, &sp) < 0 ? -1 : spawn_collect(&sp, NULL, 0);
	r = ws < 0 ? (msg_fatal_sys("unable to run %s", prog), EXIT_USAGE) : wait_code(ws);
	av_free(&a);
	av_free(&e);
	return r;
}

/* Would env-filter pass NAME at all? Asked of env-filter itself, with a
 * placeholder value: the same rule it applies at run. */
static int
filter_takes(char *const envp[], const char *name)
{
	struct argv a = { 0 }, e = { 0 };
	char prog[PATH_MAX + 16], **env;
	int ws;

	if (step_path("env-filter", prog, sizeof prog) < 0)
		return -1;
	av_push(&a, prog);
	av_push(&a, "--explain");
	av_push(&a, "-s");
	av_pushf(&a, "%s=x", name);
	if (a.err || (env = store_env(envp, &e)) == NULL) {
		av_free(&a);
		return msg_fatal("out of memory"), -1;
	}
	ws = spawn_wait(a.v, env, (char[64]){ 0 }, 64);	/* its stdout: the name; its refusal on stderr */
	av_free(&a);
	av_free(&e);
	return ws >= 0 && wait_code(ws) == 0 ? 0 : -1;
}

/* The value: from a terminal, prompted without echo; else all of stdin
 * (a final newline dropped by session-store). */
static int
read_value(const char *proj, const char *name, char *buf, size_t n, size_t *len)
{
	struct termios old, quiet;
	int tty = tcgetattr(0, &old) == 0;
	ssize_t r;

	if (tty) {
		fprintf(stderr, "%s for project %s (not echoed): ", name, proj);
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		quiet.c_lflag |= ICANON;
		if (tcsetattr(0, TCSAFLUSH, &quiet) < 0)
			return msg_fatal_sys("unable to turn echo off"), -1;
		r = read(0, buf, n);	/* one line, in canonical mode */
		tcsetattr(0, TCSAFLUSH, &old);
		fputc('\n', stderr);
	} else {
		r = fd_read_bounded(0, buf, n);
	}
	if (r < 0) {
		if (errno == EFBIG)
			msg_fatal("the value of %s is longer than %zu bytes", name, n);
		else
			msg_fatal_sys("unable to read the value of %s", name);
		return -1;
	}
	*len = (size_t)r;
	return 0;
}

static int
env_set(const char *proj, const char *name, char **envp)
{
	static char val[ENV_VALUE_MAX + 1];
	const char *why = projenv_own(name, strlen(name));
	const char *args[] = { "env-set", proj, name, NULL };
	size_t len = 0;
	int p[2], r;

	size_t i;

	for (i = 0; name[i] && i <= 128 && (name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') ||
	    (name[i] >= 'a' && name[i] <= 'z') || (i > 0 && name[i] >= '0' && name[i] <= '9')); i++)
		;
	if (i == 0 || i > 128 || name[i]) {
		msg_fatal("bad variable name \"%.64s\" (want a letter or _, then letters, digits or _, at most 128)", name);
		return EXIT_USAGE;
	}
	if (why != NULL) {
		msg_fatal("%s cannot be a project variable: %s", name, why);
		msg_hint("pick another name; corral env list %s shows what the project has", proj);
		return EXIT_NO;
	}
	if (!prof_name_ok(proj) || filter_takes(envp, name) < 0) {
		if (prof_name_ok(proj))
			msg_fatal("%s cannot be a project variable: env-filter never passes it", name);
		else
			msg_fatal("bad project name \"%.64s\" (want %s)", proj, PROF_NAME_RULE);
		return prof_name_ok(proj) ? EXIT_NO : EXIT_USAGE;
	}
	if (read_value(proj, name, val, sizeof val - 1, &len) < 0)
		return EXIT_NO;
	/* the pipe holds it all (64 KiB): written before session-store starts */
	if (pipe2(p, O_CLOEXEC) < 0) {
		explicit_bzero(val, len);
		return msg_fatal_sys("unable to make a pipe"), EXIT_USAGE;
	}
	r = fd_write_all(p[1], val, len);
	explicit_bzero(val, len);
	close(p[1]);
	if (r < 0) {
		close(p[0]);
		return msg_fatal_sys("unable to pass the value"), EXIT_USAGE;
	}
	r = projenv_store(envp, p[0], args);
	close(p[0]);
	return r;
}

static void
usage_env(int fd)
{
	fprintf(fd == 1 ? stdout : stderr, "usage: corral env set PROJECT NAME < VALUE\n"
	    "       corral env list PROJECT\n"
	    "       corral env rm PROJECT NAME\n");
}

int
cmd_env(int argc, char **argv, char **envp)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage_env(1);
		return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	}
	if (argc == 4 && strcmp(argv[1], "set") == 0)
		return env_set(argv[2], argv[3], envp);
	if (argc == 3 && strcmp(argv[1], "list") == 0)
		return projenv_store(envp, -1, (const char *[]){ "env-list", argv[2], NULL });
	if (argc == 4 && strcmp(argv[1], "rm") == 0)
		return projenv_store(envp, -1, (const char *[]){ "env-rm", argv[2], argv[3], NULL });
	msg_usage("corral env set PROJECT NAME | list PROJECT | rm PROJECT NAME");
	usage_env(2);
	return EXIT_USAGE;
}

/* corral run --env PROJECT: session-store releases the project's values
 * for this attempt (once: a second release is refused), corral leaves out
 * the agent's own names, and the rest wait in a pipe whose read end
 * env-filter reads as -F N (layer 2; the pins, layer 3, still win). The
 * values live in corral's memory only while they are copied. */
int
projenv_open(struct plan *pl, char *const senv[], struct audit *au)
{
	struct argv a = { 0 }, names = { 0 };
	struct spawned sp;
	char *buf = NULL;
	size_t len = 0, off, keep = 0;
	int ws, p[2] = { -1, -1 }, rc = -1;

	pl->env_fd = -1;
	if (step_envrel(pl, &a) < 0 || (buf = malloc(ENV_RELEASE_MAX + 2)) == NULL) {
		msg_fatal("out of memory");
		goto out;
	}
	if (spawn_start(a.v, senv, SPAWN_CAPTURE, &sp) < 0) {
		msg_fatal_sys("unable to run session-store env-release");
		goto out;
	}
	ws = spawn_collect(&sp, buf, ENV_RELEASE_MAX + 2);
	len = strlen(buf);
	if (ws < 0 || wait_code(ws) != 0) {
		msg_fatal("the environment of project %s was not released (session-store status %d): nothing was started",
		    pl->env_project, ws < 0 ? -1 : wait_code(ws));
		goto out;
	}
	if (len > ENV_RELEASE_MAX) {
		msg_fatal("the environment of project %s is larger than %d bytes: nothing was started",
		    pl->env_project, ENV_RELEASE_MAX);
		goto out;
	}
	/* the agent's own names stay out (corral env set refuses them) */
	for (off = 0; off < len;) {
		char *e = memchr(buf + off, '\n', len - off);
		size_t l = e ? (size_t)(e - (buf + off)) + 1 : len - off, nl = strcspn(buf + off, "=\n");
		const char *why = projenv_own(buf + off, nl);
		if (why != NULL) {
			msg_warn("project %s: %.*s left out: %s", pl->env_project, (int)nl, buf + off, why);
		} else {
			av_pushf(&names, "%.*s", (int)nl, buf + off);
			memmove(buf + keep, buf + off, l);
			keep += l;
		}
		off += l;
	}
	if (pipe2(p, O_CLOEXEC) < 0 || (keep > 65536 && fcntl(p[1], F_SETPIPE_SZ, (int)keep) < (int)keep)) {
		msg_fatal_sys("unable to make a pipe for the environment of project %s", pl->env_project);
		goto out;
	}
	/* the read end goes through the keeper to env-filter, which closes it */
	if (fd_write_all(p[1], buf, keep) < 0 || fcntl(p[0], F_SETFD, 0) < 0 || p[0] < 3) {
		msg_fatal_sys("unable to pass the environment of project %s", pl->env_project);
		goto out;
	}
	pl->env_fd = p[0];
	p[0] = -1;
	audit_start(au, "project environment");
	audit_str(au, "project", pl->env_project);
	audit_strs(au, "names", names.v, names.n);	/* names only, never a value */
	audit_end(au);
	rc = 0;
out:
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	av_free(&a);
	av_free(&names);
	return rc;
}
