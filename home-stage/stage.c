#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "execenv.h"
#include "fdio.h"
#include "gitcfg.h"
#include "hs.h"
#include "parentdir.h"
#include "json.h"
#include "msg.h"
#include "path.h"
#include "rmtree.h"
#include "rnd.h"
#include "rundir.h"
#include "store.h"
#include "storeattempt.h"

/* What create noted about the sign-in it staged; finish compares. */
struct meta {
	char agent[PROF_NAME_MAX + 1];
	char signin[PROF_NAME_MAX + 1];		/* "" with --full-setup */
	int64_t ino, size, mtime, mtime_ns;
};

static int
meta_format(const struct meta *m, char *buf, size_t n)
{
	int r = snprintf(buf, n, "{\"agent\":\"%s\",\"signin\":\"%s\",\"ino\":%" PRId64 ",\"size\":%" PRId64
	    ",\"mtime\":%" PRId64 ",\"mtime_ns\":%" PRId64 "}\n", m->agent, m->signin, m->ino, m->size,
	    m->mtime, m->mtime_ns);

	return r < 0 || (size_t)r >= n ? -1 : r;
}

static int
meta_parse(const char *buf, size_t len, struct meta *m)
{
	static const char *const keys[] = { "ino", "size", "mtime", "mtime_ns" };
	int64_t *vals[] = { &m->ino, &m->size, &m->mtime, &m->mtime_ns };
	jsmntok_t t[16];
	int n, k, i;

	memset(m, 0, sizeof *m);
	n = json_parse(buf, len, t, 16);
	if (n < 0 || t[0].type != JSMN_OBJECT)
		return -1;
	k = json_get(buf, t, 0, "agent");
	if (k < 0 || json_str(buf, &t[k], m->agent, sizeof m->agent) < 0 || !prof_name_ok(m->agent))
		return -1;
	k = json_get(buf, t, 0, "signin");
	if (k < 0 || json_str(buf, &t[k], m->signin, sizeof m->signin) < 0 ||
	    (m->signin[0] && !prof_name_ok(m->signin)))
		return -1;
	for (i = 0; i < 4; i++) {
		k = json_get(buf, t, 0, keys[i]);
		if (k < 0 || json_int(buf, &t[k], vals[i]) < 0)
			return -1;
	}
	return 0;
}

/* session-store by absolute path: next to our own binary unless given. */
static int
store_prog(const struct hs_opts *o, char *out, size_t n)
{
	char self[PATH_MAX];

	if (o->session_store != NULL) {
		if (o->session_store[0] != '/' || strlen(o->session_store) >= n)
			return errno = EINVAL, -1;
		strcpy(out, o->session_store);
		return 0;
	}
	if (path_self_dir(self, sizeof self) < 0)
		return -1;
	if (snprintf(out, n, "%s/session-store", self) >= (int)n)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* Run session-store with fds[i] as descriptor i (i = 0, 1, 3; -1 = leave),
 * an empty environment, and return its exit status (or -1). */
static int
run_store(const struct hs_opts *o, const char *store, char **args, int fd0, int fd1, int fd3)
{
	char prog[PATH_MAX];
	char *argv[16];
	char *envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int i = 0, st, r;

	if (store_prog(o, prog, sizeof prog) < 0) {
		msg_fatal_sys("unable to locate session-store");
		return -1;
	}
	argv[i++] = prog;
	argv[i++] = "--store";
	argv[i++] = (char *)store;
	if (o->profiles_file) {
		argv[i++] = "--profiles";
		argv[i++] = (char *)o->profiles_file;
	}
	if (o->test_cacert) {
		argv[i++] = "--test-cacert";
		argv[i++] = (char *)o->test_cacert;
	}
	while (*args && i < 15)
		argv[i++] = *args++;
	argv[i] = NULL;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	/* dup2 clears FD_CLOEXEC on the target: exactly these reach the child */
	if ((fd0 >= 0 && posix_spawn_file_actions_adddup2(&fa, fd0, 0) != 0) ||
	    (fd1 >= 0 && posix_spawn_file_actions_adddup2(&fa, fd1, 1) != 0) ||
	    (fd3 >= 0 && posix_spawn_file_actions_adddup2(&fa, fd3, 3) != 0)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	r = posix_spawn(&pid, prog, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		errno = r;
		msg_fatal_sys("unable to run %s", prog);
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return wait_code(st);
}

/* The attempt's record, read now; with wait > 0 (session-store begin,
 * started beside, is writing it: it renames the record into place) read
 * again, after 50 us and then twice as long each time up to 2 ms, for up
 * to wait seconds. Only the store's own directory is read: nothing the
 * agent can write (it has not started). 0, or -1 with errno (ENOENT: not
 * recorded). Not inotify: closing an instance waits for the kernel's
 * fsnotify grace period (SRCU), 8 to 16 ms here, on the path to the agent,
 * where begin takes about a millisecond. */
static int
attempt_await(int sfd, const char *id, unsigned wait, struct attempt *at)
{
	char err[256];
	int64_t deadline = clock_ms(CLOCK_MONOTONIC) + (int64_t)wait * 1000;
	long ns = 50000;
	int afd, r, e;

	if ((afd = store_subdir(sfd, "attempts", wait > 0, err, sizeof err)) < 0)
		return -1;
	while ((r = store_read_attempt(afd, id, at)) < 0 && errno == ENOENT && wait > 0 &&
	    clock_ms(CLOCK_MONOTONIC) < deadline) {
		struct timespec t = { 0, ns };
		(void)nanosleep(&t, NULL);
		ns = ns < 1000000 ? ns * 2 : 2000000;
	}
	e = errno;
	close(afd);
	errno = e;
	return r;
}

/* The path of an open directory, from /proc. */
static int
fd_path(int fd, char *out, size_t n)
{
	char p[64];
	ssize_t l;

	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	l = readlink(p, out, n - 1);
	if (l < 0 || (size_t)l >= n - 1)
		return -1;
	out[l] = '\0';
	return out[0] == '/' ? 0 : -1;
}

static void
write_gitconfig(const struct hs_opts *o, int homefd)
{
	char name[GITCFG_VALUE_MAX] = "", email[GITCFG_VALUE_MAX] = "", out[1024], sbuf[4096], *buf;
	const char *home = env_get(o->envp, "HOME"), *xdg = env_get(o->envp, "XDG_CONFIG_HOME");
	const char *files[2] = { NULL, NULL };
	char p0[PATH_MAX], p1[PATH_MAX];
	size_t len;
	int i, n, fd;

	/* git reads $XDG_CONFIG_HOME/git/config, then ~/.gitconfig; later wins */
	if (xdg && xdg[0] == '/' && snprintf(p0, sizeof p0, "%s/git/config", xdg) < (int)sizeof p0)
		files[0] = p0;
	else if (home && home[0] == '/' && snprintf(p0, sizeof p0, "%s/.config/git/config", home) < (int)sizeof p0)
		files[0] = p0;
	if (home && home[0] == '/' && snprintf(p1, sizeof p1, "%s/.gitconfig", home) < (int)sizeof p1)
		files[1] = p1;
	for (i = 0; i < 2; i++) {
		if (files[i] == NULL || file_read_bounded_in(AT_FDCWD, files[i], 1 << 20, sbuf, sizeof sbuf, &buf, &len) < 0)
			continue;
		if (gitcfg_user(buf, len, name, email) < 0)
			msg_warn("%s: malformed, user.name/user.email not copied from it", files[i]);
		if (buf != sbuf)
			free(buf);
	}
	n = gitcfg_format(name, email, out, sizeof out);
	if (n < 0)
		return;
	fd = openat(homefd, ".gitconfig", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fd_write_all(fd, out, (size_t)n) < 0)
		msg_warn_sys("unable to write .gitconfig");
	if (fd >= 0)
		close(fd);
}

static void
print_full_setup(const struct hs_opts *o, const struct profile *p)
{
	const char *home = env_get(o->envp, "HOME");
	char path[PATH_MAX];
	struct stat st;
	int i;

	if (home == NULL || home[0] != '/') {
		msg_warn("HOME is not an absolute path: no full-setup folders");
		return;
	}
	for (i = 0; i < p->nfull; i++) {
		if (snprintf(path, sizeof path, "%s/%s", home, p->full[i]) >= (int)sizeof path)
			continue;
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			msg_warn("full setup: %s is not a directory, not granted", path);
			continue;
		}
		printf("%s\n", path);
	}
}

/* The agent's sign-in, released by the store at most once, straight into
 * the private home; its identity (inode, size, mtime) into m. 0, or the
 * exit status after a fatal message. */
static int
stage_signin(const struct hs_opts *o, const struct profile *p, int sfd, int hfd, struct meta *m)
{
	char err[256];
	const char *base;
	struct stat st;
	int dfd, fd, r;

	dfd = parentdir_open(hfd, p->signin, 0700, &base);
	if (dfd < 0) {
		msg_fatal_sys("unable to create the folders of %s", p->signin);
		return EXIT_USAGE;
	}
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0) {
		msg_fatal_sys("unable to create %s", p->signin);
		return EXIT_USAGE;
	}
	/* The store's own release (lib/store.c, the code session-store
	 * release runs): at most once per attempt, straight into the file. */
	r = store_release(sfd, o->signin, o->attempt, fd, err, sizeof err);
	if (r != 0) {
		close(fd);
		msg_fatal("sign-in %s not released for attempt %s: %s", o->signin, o->attempt, err);
		return r == 1 ? EXIT_NO : EXIT_USAGE;
	}
	if (fstat(fd, &st) < 0) {	/* 0600: hs_create set the umask */
		msg_fatal_sys("%s", p->signin);
		close(fd);
		return EXIT_USAGE;
	}
	close(fd);
	strcpy(m->signin, o->signin);
	m->ino = (int64_t)st.st_ino;
	m->size = (int64_t)st.st_size;
	m->mtime = (int64_t)st.st_mtim.tv_sec;
	m->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
	return 0;
}

struct fin;
static int create_finish(struct hs_opts *o, int sfd, int tfd, int afd, const char *name, const char *tdir,
    const char *state, const struct meta *m);

int
hs_create(struct hs_opts *o)
{
	static const int quiet[] = { SIGINT, SIGQUIT, SIGHUP };
	const struct profile *p;
	char err[256], state[PATH_MAX], ws[PATH_MAX], name[NAME_MAX + 1], nonce[STORE_TREE_NONCE_LEN + 1];
	char metabuf[512], tdir[PATH_MAX], key[48];
	struct stat st;
	struct meta m;
	int sfd = -1, tfd = -1, afd = -1, hfd = -1, fd, r, rc = EXIT_USAGE, made = 0, kn, begun = 0;

	if (!store_id_ok(o->attempt)) {
		msg_fatal("bad attempt id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	if ((p = profiles_find(&o->prof, o->agent)) == NULL) {
		msg_fatal("no profile for agent %.32s", o->agent);
		{
			char names[256];
			profiles_names(&o->prof, names, sizeof names);
			msg_hint("known agents: %s (more with --profiles)", names);
		}
		return EXIT_USAGE;
	}
	if (o->signin == NULL)
		o->signin = o->agent;
	if (!prof_name_ok(o->signin)) {
		msg_fatal("bad --signin name");
		return EXIT_USAGE;
	}
	/* Everything create makes is the attempt's own: 0700 directories and
	 * 0600 files exactly as asked, with no fchmod after each (a caller's
	 * umask can only narrow them; 077 leaves the owner's bits whole) */
	(void)umask(077);
	/* fully buffered, flushed once at the end: musl asks the terminal
	 * size (an ioctl) of a stdout left to choose */
	(void)setvbuf(stdout, NULL, _IOFBF, 0);
	sfd = store_open(o->state, 1, err, sizeof err);
	if (sfd < 0) {
		msg_fatal("state directory %s: %s", o->state, err);
		if (errno == EPERM)
			msg_hint("it must be a directory you own, mode 0700");
		return errno == EPERM ? EXIT_NO : EXIT_USAGE;
	}
	/* --begin: the attempt recorded here and the leftovers of dead ones
	 * reaped, under the store's lock (lib/storeattempt.c, what
	 * session-store begin --reap runs): no process beside to wait for */
	if (o->begin) {
		struct attempt at;
		int64_t pid = o->pid ? o->pid : getppid();
		if (store_attempt_new(&at, o->attempt, o->agent, pid) < 0) {
			msg_fatal_sys("process %d", (int)pid);
			close(sfd);
			return EXIT_USAGE;
		}
		if ((r = store_attempt_begin(sfd, o->state, &at, 1, o->trees, &begun)) < 0) {
			rc = -r;
			goto out;
		}
	}
	if (fd_path(sfd, state, sizeof state) < 0 || realpath(o->workspace ? o->workspace : ".", ws) == NULL) {
		msg_fatal_sys("unable to resolve the state directory or the workspace");
		goto out;
	}
	if (path_within(state, ws) || path_within(ws, state)) {
		msg_fatal("state directory %s overlaps the workspace %s", state, ws);
		msg_hint("put the state directory outside the workspace (the default is ~/.local/state/corral)");
		rc = EXIT_NO;
		goto out;
	}
	/* the tree's directory: the store (checked above), or the runtime
	 * one (rundir.h) */
	if (o->trees == NULL) {
		tfd = sfd;
		strcpy(tdir, state);
	} else {
		tfd = store_open(o->trees, 1, err, sizeof err);
		if (tfd < 0 || fd_path(tfd, tdir, sizeof tdir) < 0) {
			msg_fatal("trees directory %s: %s", o->trees, tfd < 0 ? err : strerror(errno));
			rc = tfd < 0 && errno == EPERM ? EXIT_NO : EXIT_USAGE;
			goto out;
		}
		if (path_within(tdir, ws) || path_within(ws, tdir)) {
			msg_fatal("trees directory %s overlaps the workspace %s", tdir, ws);
			rc = EXIT_NO;
			goto out;
		}
	}
	if (!begun) {	/* the attempt must be this agent's, and running */
		struct attempt at;
		r = attempt_await(sfd, o->attempt, o->wait_record, &at);
		if (r < 0 || strcmp(at.agent, o->agent) != 0 || at.ended) {
			msg_fatal("attempt %s: %s", o->attempt, r < 0 ? "no such attempt in the store" :
			    at.ended ? "it has ended" : "it was begun for another agent");
			rc = r < 0 && errno != ENOENT ? EXIT_USAGE : EXIT_NO;
			goto out;
		}
	}
	/* A random nonce: nobody can have pre-created or planted this path.
	 * Short (store.h): the agent's HOME is under it, and sockets it binds
	 * there must fit in sun_path. --nonce: the caller's random one (corral
	 * names the tree's paths to its chain before this has run); whatever
	 * is there already makes mkdirat fail, so a nonce known ahead plants
	 * nothing either. */
	if (o->nonce != NULL)
		memcpy(nonce, o->nonce, sizeof nonce);	/* checked by main */
	if ((o->nonce == NULL && rnd_hex(nonce, STORE_TREE_NONCE_LEN / 2) < 0) ||
	    snprintf(name, sizeof name, "a%s", nonce) >= (int)sizeof name) {
		msg_fatal_sys("unable to name the attempt directory");
		goto out;
	}
	if (mkdirat(tfd, name, 0700) < 0) {
		msg_fatal_sys("unable to create %s/%s", tdir, name);
		rc = errno == EEXIST ? EXIT_NO : EXIT_USAGE;
		goto out;
	}
	made = 1;
	afd = openat(tfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (afd < 0 || fstat(afd, &st) < 0 || st.st_uid != geteuid() ||
	    ((st.st_mode & 0777) != 0700 && (errno = EPERM))) {
		msg_fatal_sys("unable to open %s/%s", tdir, name);
		goto out;
	}
	/* the store it belongs to (trees of several stores may share a
	 * runtime directory; in the store itself, every tree is the store's
	 * and reap reads no key: none is written), then the attempt: what
	 * reap reads (store.h) */
	kn = o->trees ? rundir_store_key(sfd, key, sizeof key) : 0;
	for (int i = o->trees ? 0 : 1; i < 2; i++) {
		const char *f = i ? "id" : "store";
		char line[STORE_ID_LEN + 2];
		int ln = i ? snprintf(line, sizeof line, "%s\n", o->attempt) : kn;
		fd = ln < 0 ? -1 : openat(afd, f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || fd_write_all(fd, i ? line : key, (size_t)ln) < 0) {
			msg_fatal_sys("unable to write %s/%s/%s", tdir, name, f);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
	}
	if (mkdirat(afd, "home", 0700) < 0 || mkdirat(afd, "config", 0700) < 0 || mkdirat(afd, "tmp", 0700) < 0) {
		msg_fatal_sys("unable to create home, config, tmp in %s/%s", tdir, name);
		goto out;
	}
	hfd = openat(afd, "home", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (hfd < 0) {
		msg_fatal_sys("unable to open %s/%s/home", tdir, name);
		goto out;
	}
	memset(&m, 0, sizeof m);
	strcpy(m.agent, o->agent);
	if (!o->full_setup && (rc = stage_signin(o, p, sfd, hfd, &m)) != 0)
		goto out;
	rc = EXIT_USAGE;
	write_gitconfig(o, hfd);
	/* The attempt's own notes, beside home/ (the agent is granted home,
	 * config and tmp, not this), for finish. Ephemeral: no fsync.
	 * --finish: they stay in this process's memory (create_finish). */
	if (!o->finish) {
		r = meta_format(&m, metabuf, sizeof metabuf);
		fd = r < 0 ? -1 : openat(afd, "stage", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || fd_write_all(fd, metabuf, (size_t)r) < 0) {
			msg_fatal_sys("unable to write %s/%s/stage", tdir, name);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
	}
	printf("%s/%s\n", tdir, name);
	if (o->full_setup)
		print_full_setup(o, p);
	if (o->finish) {
		/* the empty line ends create's part: its caller reads up to
		 * it, not to the end. From before it, what its caller's
		 * terminal or group is sent leaves it (finish_go). */
		for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
			signal(quiet[i], SIG_IGN);
		putchar('\n');
	}
	if (fflush(stdout) != 0) {
		msg_fatal_sys("unable to write to standard output");
		goto out;
	}
	made = 0;
	rc = 0;
	if (o->finish) {
		close(hfd);
		/* its descriptors are finish's now */
		return create_finish(o, sfd, tfd, afd, name, tdir, state, &m);
	}
out:
	if (made && rmtree_at(tfd, name) < 0)
		msg_warn_sys("unable to remove %s/%s", tdir, name);
	/* recorded here and nothing staged: ended as corral's own failure
	 * (125), as corral ends an attempt whose home was not made */
	if (begun && rc != 0)
		(void)store_attempt_end(sfd, o->state, o->attempt, EXIT_CHAIN_FAIL, NULL, NULL);
	if (hfd >= 0)
		close(hfd);
	if (afd >= 0)
		close(afd);
	if (tfd >= 0 && tfd != sfd)
		close(tfd);
	close(sfd);
	return rc;
}

/* Open rel under homefd, never through a symlink; a regular file or -1. */
static int
open_in_home(int homefd, const char *rel, struct stat *st)
{
	const char *base;
	int dfd, fd;

	dfd = parentdir_open(homefd, rel, 0, &base);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return errno = EINVAL, -1;
	}
	return fd;
}

/* Offer a changed sign-in to session-store renew: 0 taken (or nothing to
 * take), 1 refused (said in one line, by session-store or here), 2 error.
 * Only the sign-in goes: no file the agent wrote names the account
 * (session-store asks the provider). */
static int
take_back(struct hs_opts *o, const char *state, int afd, const struct meta *m)
{
	const struct profile *p;
	char *args[] = { "renew", (char *)m->signin, "--from-fd", "0", NULL };
	struct stat st;
	int hfd, fd, r;

	/* loaded already: all by finish (finish_open), the agent's by
	 * create --finish (the same profile: hs_profiles) */
	if (hs_profiles(o, m->agent) < 0)
		return EXIT_USAGE;
	if ((p = profiles_find(&o->prof, m->agent)) == NULL) {
		msg_fatal("no profile for agent %s", m->agent);
		return EXIT_USAGE;
	}
	hfd = openat(afd, "home", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (hfd < 0) {
		msg_warn("%s: home is gone or not a directory: nothing taken back", m->signin);
		return 0;
	}
	fd = open_in_home(hfd, p->signin, &st);
	close(hfd);
	if (fd < 0) {
		if (errno != ENOENT)
			msg_warn("renewed sign-in %s not taken back: %s is not a plain file; the stored sign-in stays",
			    m->signin, p->signin);
		return 0;
	}
	if ((int64_t)st.st_ino == m->ino && (int64_t)st.st_size == m->size &&
	    (int64_t)st.st_mtim.tv_sec == m->mtime && (int64_t)st.st_mtim.tv_nsec == m->mtime_ns) {
		close(fd);
		return 0;	/* unchanged */
	}
	if (st.st_size > STORE_SECRET_MAX) {
		msg_warn("renewed sign-in %s not taken back: larger than %d bytes; the stored sign-in stays",
		    m->signin, STORE_SECRET_MAX);
		close(fd);
		return EXIT_NO;
	}
	r = run_store(o, state, args, fd, -1, -1);
	close(fd);
	if (r == 0) {
		printf("%s\n", m->signin);
		return 0;
	}
	if (r == 1)
		return EXIT_NO;
	return EXIT_USAGE;
}

/* What finish opens and reads before its go byte (finish_open): the trees
 * directory, the attempt's directory and its stage file, the profiles
 * and the store; none of it the agent's (it writes only home/, config/,
 * tmp/ beneath). */
struct fin {
	int sfd, afd;			/* the trees directory, the attempt's */
	char base[NAME_MAX + 1];	/* the attempt directory's name */
	char state[PATH_MAX];		/* the trees directory's real path */
	struct meta m;
	int rc;				/* the stage file: 0 read, else the exit */
	int store;			/* --end: the store (-1: none, -2 failed, said;
					   may be sfd: create --finish) */
	char storepath[PATH_MAX];
	const char *renew;		/* the store session-store renew is given
					   (create --finish), or NULL: as above */
};

/* 0, or the exit status said */
static int
finish_open(struct hs_opts *o, const char *dir, struct fin *f)
{
	char parent[PATH_MAX], err[256], *slash, *buf;
	struct stat st;
	size_t len, n = strlen(dir);
	int r;

	f->sfd = f->afd = f->store = -1;
	f->rc = 0;
	f->renew = NULL;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof parent) {
		msg_fatal("path too long");
		return EXIT_USAGE;
	}
	memcpy(parent, dir, n);
	parent[n] = '\0';
	slash = strrchr(parent, '/');
	if (slash == NULL || strlen(slash + 1) > NAME_MAX) {
		msg_fatal("%s: not an attempt directory path", dir);
		return EXIT_USAGE;
	}
	strcpy(f->base, slash + 1);
	if (slash == parent)
		strcpy(parent, "/");
	else
		*slash = '\0';
	if (!store_tree_name_ok(f->base, strlen(f->base))) {
		msg_fatal("%s: not an attempt directory (aNONCE: 'a' and %d hex digits)", dir, STORE_TREE_NONCE_LEN);
		return EXIT_USAGE;
	}
	if (o->state != NULL && o->state[0] != '/') {
		msg_fatal("--state must be an absolute path (it is passed to session-store)");
		return EXIT_USAGE;
	}
	f->sfd = store_open(parent, 0, err, sizeof err);
	if (f->sfd < 0) {
		msg_fatal("trees directory %s: %s", parent, err);
		return errno == EPERM ? EXIT_NO : EXIT_USAGE;
	}
	if (fd_path(f->sfd, f->state, sizeof f->state) < 0) {
		msg_fatal_sys("unable to resolve %s", parent);
		return EXIT_USAGE;
	}
	f->afd = openat(f->sfd, f->base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (f->afd < 0 || fstat(f->afd, &st) < 0 || st.st_uid != geteuid()) {
		msg_fatal_sys("%s: not our attempt directory", dir);
		return errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	}
	if (file_read_bounded(f->afd, "stage", 4096, &buf, &len) < 0) {
		msg_warn_sys("%s/stage: nothing taken back", dir);
		f->rc = EXIT_USAGE;
	} else {
		r = meta_parse(buf, len, &f->m);
		free(buf);
		if (r < 0) {
			msg_warn("%s/stage: damaged: nothing taken back", dir);
			f->rc = EXIT_USAGE;
		} else if (f->m.signin[0] != '\0' && hs_profiles(o, NULL) < 0) {
			f->rc = EXIT_USAGE;	/* said; the take-back needs them */
		}
	}
	return 0;
}

static void
finish_close(struct fin *f)
{
	if (f->afd >= 0)
		close(f->afd);
	if (f->sfd >= 0)
		close(f->sfd);
	if (f->store >= 0 && f->store != f->sfd)
		close(f->store);
	f->afd = f->sfd = f->store = -1;
}

static int
finish_tree(struct hs_opts *o, const char *dir, struct fin *f)
{
	int rc = f->rc;

	/* the store: --state, else the tree's own directory (create
	 * --finish: its store, by its real path) */
	if (rc == 0 && f->m.signin[0] != '\0')
		rc = take_back(o, f->renew ? f->renew : o->state ? o->state : f->state, f->afd, &f->m);
	close(f->afd);
	f->afd = -1;
	if (rmtree_at(f->sfd, f->base) < 0) {
		msg_fatal_sys("unable to remove %s", dir);
		return EXIT_USAGE;
	}
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return rc;
}

/* --end's store: --state, else the tree's own directory; opened before
 * the go byte (the record is locked and written only after). 0, or -1
 * said. */
static int
finish_store(const struct hs_opts *o, const char *dir, struct fin *f)
{
	char *store = f->storepath, err[256], *slash;
	const size_t cap = sizeof f->storepath;
	size_t n;

	if (o->state != NULL) {
		n = strlen(o->state);
		if (n >= cap)
			return -1;
		memcpy(store, o->state, n + 1);
	} else {
		n = strlen(dir);
		while (n > 1 && dir[n - 1] == '/')
			n--;
		if (n >= cap)
			return -1;
		memcpy(store, dir, n);
		store[n] = '\0';
		if ((slash = strrchr(store, '/')) == NULL)
			return msg_fatal("%s: not an attempt directory path", dir), -1;
		if (slash == store)
			slash[1] = '\0';	/* "/" */
		else
			*slash = '\0';
	}
	if ((f->store = store_open(store, 0, err, sizeof err)) < 0) {
		msg_fatal("store %s: %s", store, err);
		return -1;
	}
	return 0;
}

/* --wait-input: standard input read to its end (at most 127 bytes). 1 go:
 * it began with the byte g (with --status -, then the status, 0 to 255 in
 * decimal; with create --finish, then optionally a space, the platform, a
 * space and the tier; and at most a newline after); 0: it ended without
 * one (a caller that died meanwhile: corral starts finish while the agent
 * runs); -1: g and something else, said. By hand: printf g0. */
static int
wait_input(struct hs_opts *o)
{
	char buf[128], *sp;
	size_t got = 0, i, e;
	ssize_t n;
	int st = 0, nd = 0;

	while (got < sizeof buf && ((n = read(0, buf + got, sizeof buf - got)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	if (got == 0 || buf[0] != 'g')
		return 0;
	if (got == sizeof buf)
		return msg_fatal("its input holds more than the go byte and a status"), -1;
	e = got > 1 && buf[got - 1] == '\n' ? got - 1 : got;	/* the newline after */
	for (i = 1; i < e; i++) {
		if (o->labels_input && buf[i] == ' ' && nd > 0)
			break;		/* the platform and the tier follow */
		if (!o->status_input || buf[i] < '0' || buf[i] > '9' || nd == 3)
			return msg_fatal("its input holds more than the go byte%s", o->status_input ? " and a status" : ""), -1;
		st = st * 10 + (buf[i] - '0');
		nd++;
	}
	if (o->status_input) {
		if (nd == 0 || st > 255)
			return msg_fatal("its input holds the go byte without a status (0 to 255) after it"), -1;
		o->status = st;
	}
	if (i < e) {
		/* " PLATFORM TIER": each as --platform and --tier take them */
		buf[e] = '\0';
		sp = strchr(buf + i + 1, ' ');
		if (sp == NULL || sp - (buf + i + 1) > STORE_LABEL_MAX || strlen(sp + 1) > STORE_LABEL_MAX)
			return msg_fatal("its input holds the go byte and a status, then not a platform and a tier"), -1;
		*sp = '\0';
		strcpy(o->labels[0], buf + i + 1);
		strcpy(o->labels[1], sp + 1);
		if (!store_label_ok(o->labels[0]) || !store_label_ok(o->labels[1]))
			return msg_fatal("bad platform or tier on its input (want [A-Za-z0-9._:+-], at most 32)"), -1;
		o->platform = o->labels[0];
		o->tier = o->labels[1];
	}
	return 1;
}

/* After what finish opens and reads (finish_open, or create --finish's
 * own): with --wait-input its input waited for; then the take-back, the
 * removal and with --end the record, whatever finish did (rc: 0, or the
 * exit status finish_open said). */
static int
finish_go(struct hs_opts *o, const char *dir, struct fin *f, int rc)
{
	static const int quiet[] = { SIGINT, SIGQUIT, SIGHUP };
	int r, go;

	if (o->wait_input) {
		/* its caller ends it by closing its input: a signal meant for
		 * the caller's terminal or group leaves it waiting (create
		 * --finish has ignored them since before its empty line) */
		for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
			signal(quiet[i], SIG_IGN);
		go = wait_input(o);
		/* back to their defaults before session-store may start (a
		 * take-back), not otherwise: it ends soon */
		for (size_t i = 0; rc == 0 && f->rc == 0 && f->m.signin[0] && i < sizeof quiet / sizeof quiet[0]; i++)
			signal(quiet[i], SIG_DFL);
		if (go <= 0) {
			if (go == 0)
				msg_warn("its input ended without the go byte (its caller gone): nothing taken back, "
				    "removed or recorded; %s stays until the next run reaps it", dir);
			finish_close(f);
			return go == 0 ? EXIT_NO : EXIT_USAGE;
		}
	}
	if (rc == 0)
		rc = finish_tree(o, dir, f);
	if (o->end == NULL || f->store < 0) {
		finish_close(f);
		return o->end == NULL ? rc : EXIT_USAGE;
	}
	r = store_attempt_end(f->store, f->storepath, o->end, o->status, o->platform, o->tier);
	finish_close(f);
	/* the end not recorded: an error, whatever finish said */
	return r < 0 ? EXIT_USAGE : rc;
}

/* create --finish, its tree made and named (the empty line printed): what
 * finish --wait-input --end ID --status - does, from what create opened
 * and noted itself, before the agent ran: the trees directory, the
 * attempt's directory (made and opened here, without following), its store
 * (opened and checked here) and the sign-in's identity (m, never read back
 * from a file); nothing opened again by name. What the agent can write is
 * read only after the go byte, as by finish (take_back). */
static int
create_finish(struct hs_opts *o, int sfd, int tfd, int afd, const char *name, const char *tdir,
    const char *state, const struct meta *m)
{
	struct fin f;
	char dir[PATH_MAX + NAME_MAX + 2];

	memset(&f, 0, sizeof f);
	f.sfd = tfd;
	f.afd = afd;
	f.store = sfd;
	f.rc = 0;
	f.m = *m;
	snprintf(f.base, sizeof f.base, "%s", name);
	snprintf(f.state, sizeof f.state, "%s", tdir);
	snprintf(f.storepath, sizeof f.storepath, "%s", state);
	f.renew = f.storepath;
	snprintf(dir, sizeof dir, "%s/%s", tdir, name);	/* as printed */
	return finish_go(o, dir, &f, 0);
}

/* finish, then with --end the attempt's record closed (lib/storeattempt.c,
 * what session-store end runs), whatever finish did: one process where
 * corral ran two side by side. With --wait-input, what finish opens and
 * reads first (finish_open: nothing the agent wrote) is read, then its
 * input waited for; the take-back, the removal and the record only after
 * the go byte. */
int
hs_finish(struct hs_opts *o, const char *dir)
{
	struct fin f;
	int rc;

	rc = finish_open(o, dir, &f);
	/* the store, whatever finish_open found (the record is ended
	 * whatever finish did) */
	if (o->end != NULL && finish_store(o, dir, &f) < 0)
		f.store = -2;
	return finish_go(o, dir, &f, rc);
}

/* The profiles, loaded once: every one (agent NULL) or the agent's
 * (hs.h); main.c and finish's sign-in take-back both ask. */
int
hs_profiles(struct hs_opts *o, const char *agent)
{
	char err[512];
	int r;

	if (o->prof_loaded == 1 || (agent != NULL && o->prof_loaded == 2))
		return 0;
	r = agent != NULL ? profiles_load_for(o->profiles_file, agent, &o->prof, err, sizeof err) :
	    profiles_load(o->profiles_file, &o->prof, err, sizeof err);
	if (r < 0) {
		msg_fatal("%s", err);
		return -1;
	}
	o->prof_loaded = agent != NULL ? 2 : 1;
	return 0;
}
