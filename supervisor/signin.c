/* corral signin: an agent's sign-in into the store, by its own login flow
 * run under the boundary in a fresh synthetic home (or taken from the
 * user's home with --from-home), kept only after session-store put
 * --verify's checks (a plausible expiry; the account the provider names
 * for its token, where the profile has a verification request). Nothing
 * else of the login's home is kept: the attempt is closed as any other. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "argv.h"
#include "cli.h"
#include "execenv.h"
#include "msg.h"
#include "profile.h"
#include "projenv.h"
#include "rmtree.h"
#include "stepdir.h"
#include "store.h"

struct signin {
	const struct profile *p;
	const char *profiles, *cacert;	/* --profiles, --test-cacert */
	char **envp;
	int took;			/* the after-hook ran: rc is its verdict */
	int rc;
};

static void
usage_signin(int fd)
{
	fprintf(fd == 1 ? stdout : stderr,
	    "usage: corral signin AGENT [--from-home] [--profiles FILE] [--test-cacert FILE]\n"
	    "       corral signin --status [--profiles FILE]\n"
	    "       corral signin --remove AGENT\n");
}

/* rel under dirfd, never through a symbolic link nor out of dirfd: a
 * regular file's descriptor, or -1 with errno. */
static int
open_beneath(int dirfd, const char *rel)
{
	struct open_how how = { .flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	struct stat st;
	int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > STORE_SECRET_MAX) {
		int e = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

static const char *
open_why(int e)
{
	return e == ELOOP ? "a symbolic link on the way" : e == EXDEV ? "it leads out of the home" :
	    e == EINVAL ? "not a regular file" : e == EFBIG ? "larger than 1 MiB" : strerror(e);
}

/* session-store put AGENT --agent AGENT --verify, the sign-in on stdin and
 * the account file (if the profile has one) on descriptor 3; its status. */
static int
store_put(const struct signin *si, const char *store, int sfd, int afd)
{
	const char *args[16];
	int n = 0;

	if (store)
		args[n++] = "--store", args[n++] = store;
	if (si->profiles)
		args[n++] = "--profiles", args[n++] = si->profiles;
	if (si->cacert)
		args[n++] = "--test-cacert", args[n++] = si->cacert;
	args[n++] = "put";
	args[n++] = si->p->name;
	args[n++] = "--agent";
	args[n++] = si->p->name;
	args[n++] = "--verify";
	if (afd >= 0)
		args[n++] = "--account-fd", args[n++] = "3";
	args[n] = NULL;
	return projenv_store_fd3(si->envp, sfd, afd, args);
}

/* Take the sign-in (and the account file) from the home at homefd. */
static int
take(const struct signin *si, const char *store, int homefd, const char *whose)
{
	const struct profile *p = si->p;
	int sfd, afd = -1, r;

	if ((sfd = open_beneath(homefd, p->signin)) < 0) {
		msg_fatal("no sign-in taken from %s: ~/%s: %s", whose, p->signin, open_why(errno));
		return EXIT_NO;
	}
	if (p->account.file[0] && (afd = open_beneath(homefd, p->account.file)) < 0) {
		msg_fatal("no sign-in taken from %s: the account file ~/%s: %s", whose, p->account.file, open_why(errno));
		close(sfd);
		return EXIT_NO;
	}
	r = store_put(si, store, sfd, afd);
	close(sfd);
	if (afd >= 0)
		close(afd);
	if (r == 0) {
		if (p->account.file[0])
			msg_info("signin: took ~/%s and the account in ~/%s from %s", p->signin, p->account.file, whose);
		else
			msg_info("signin: took ~/%s from %s", p->signin, whose);
	} else {
		msg_hint("nothing was stored; sign in again: corral signin %s", p->name);
	}
	return r == 0 ? 0 : r == EXIT_NO ? EXIT_NO : EXIT_USAGE;
}

/* corral run's after-hook: every process of the login has ended. */
static int
after_login(const struct plan *pl, int code, void *arg)
{
	struct signin *si = arg;
	char home[PATH_MAX + 8];
	int hfd;

	si->took = 1;
	if (code != 0) {
		msg_fatal("the login (%s) ended with status %d: nothing was stored", si->p->login[0], code);
		si->rc = EXIT_NO;
		return code;
	}
	snprintf(home, sizeof home, "%s/home", pl->attempt_dir);
	if ((hfd = open(home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		msg_fatal_sys("unable to open the login's home %s", home);
		si->rc = EXIT_USAGE;
		return code;
	}
	si->rc = take(si, pl->store, hfd, "the login's home");
	if (si->rc == 0)
		msg_info("signin: nothing else of the login's home was kept");
	close(hfd);
	return code;
}

static int
login(struct signin *si)
{
	struct runopts o;
	char ws[PATH_MAX];
	const char *tmp = env_get(si->envp, "TMPDIR");
	char *cmd[PROF_LOGIN_MAX + 1];
	int i, r, dfd;

	if (si->p->nlogin == 0) {
		msg_fatal("the profile of %s names no login command", si->p->name);
		msg_hint("sign in with %s outside corral, then: corral signin %s --from-home (or give its profile a \"login\")",
		    si->p->name, si->p->name);
		return EXIT_NO;
	}
	/* an empty workspace of its own: the login never sees a project */
	if ((size_t)snprintf(ws, sizeof ws, "%s/corral-signin-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp") >= sizeof ws ||
	    mkdtemp(ws) == NULL)
		return msg_fatal_sys("unable to make an empty workspace for the login"), EXIT_USAGE;
	for (i = 0; i < si->p->nlogin; i++)
		cmd[i] = (char *)si->p->login[i];
	cmd[i] = NULL;
	memset(&o, 0, sizeof o);
	o.agent = si->p->name;
	o.workspace = ws;
	o.git = GIT_OFF;
	o.profiles_file = si->profiles;
	o.test_cacert = si->cacert;
	o.quiet = 1;
	o.fresh = 1;
	o.cmd = cmd;
	{
		char words[PROF_LOGIN_MAX * PROF_PATH_MAX], *w = words;
		for (i = 0; i < si->p->nlogin; i++)
			w += snprintf(w, sizeof words - (size_t)(w - words), "%s%s", i ? " " : "", si->p->login[i]);
		msg_info("signin: %s's own login (%s) in a fresh home under the boundary; nothing but its sign-in is kept",
		    si->p->name, words);
	}
	r = run_attempt(&o, si->envp, after_login, si);
	/* the workspace: whatever the login left there goes */
	{
		char *slash = strrchr(ws, '/');
		*slash = '\0';
		dfd = open(ws[0] ? ws : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0 || rmtree_at(dfd, slash + 1) < 0)
			msg_warn_sys("unable to remove %s/%s", ws, slash + 1);
		if (dfd >= 0)
			close(dfd);
	}
	if (si->took)
		return si->rc;
	return r == 0 ? EXIT_USAGE : EXIT_NO;	/* corral run said why */
}

static int
from_home(struct signin *si)
{
	const char *home = env_get(si->envp, "HOME");
	int hfd, r;

	if (home == NULL || home[0] != '/') {
		msg_fatal("--from-home: HOME is not an absolute path");
		return EXIT_USAGE;
	}
	if ((hfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return msg_fatal_sys("unable to open %s", home), EXIT_USAGE;
	r = take(si, NULL, hfd, home);
	close(hfd);
	return r;
}

int
cmd_signin(int argc, char **argv, char **envp)
{
	static const struct option lo[] = {
		{ "from-home", no_argument, NULL, 'H' },
		{ "status", no_argument, NULL, 's' },
		{ "remove", required_argument, NULL, 'r' },
		{ "profiles", required_argument, NULL, 'P' },
		{ "test-cacert", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct profiles prof;
	struct signin si;
	const char *rm = NULL, *agent = NULL;
	char err[512];
	int c, fromhome = 0, status = 0, r;

	memset(&si, 0, sizeof si);
	si.envp = envp;
	agent = av_verb(&argc, &argv);	/* "signin AGENT --from-home" */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", lo, NULL)) != -1) {
		switch (c) {
		case 'H': fromhome = 1; break;
		case 's': status = 1; break;
		case 'r': rm = optarg; break;
		case 'P': si.profiles = optarg; break;
		case 'C': si.cacert = optarg; break;
		case 'h':
			usage_signin(1);
			return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
		default:
			msg_badopt(c, argc, argv, "corral signin");
			return EXIT_USAGE;
		}
	}
	if (agent == NULL && optind < argc)
		agent = argv[optind++];
	if (status + !!rm + !!agent != 1 || optind != argc || (fromhome && !agent) ||
	    (rm && (si.profiles || si.cacert))) {
		msg_usage("corral signin AGENT [--from-home] | --status | --remove AGENT");
		usage_signin(2);
		return EXIT_USAGE;
	}
	if (status) {
		printf("NAME\tAGENT\tACCOUNT\tEXPIRES\tSIGNED IN\tLAST RENEWAL\n");
		fflush(stdout);
		return projenv_store(envp, -1, si.profiles ? (const char *[]){ "--profiles", si.profiles, "signins", NULL } :
		    (const char *[]){ "signins", NULL });
	}
	if (rm) {
		if ((r = projenv_store(envp, -1, (const char *[]){ "remove", rm, NULL })) == 0)
			msg_info("signin: the sign-in of %s was removed from the store", rm);
		return r;
	}
	if (!prof_name_ok(agent)) {
		msg_usage("agent name \"%.64s\": want %s", agent, PROF_NAME_RULE);
		return EXIT_USAGE;
	}
	if (profiles_load(si.profiles, &prof, err, sizeof err) < 0) {
		msg_fatal("%s", err);
		return EXIT_USAGE;
	}
	if ((si.p = profiles_find(&prof, agent)) == NULL) {
		profiles_names(&prof, err, sizeof err);
		msg_fatal("no profile for agent %.32s", agent);
		msg_hint("known agents: %s (more with --profiles)", err);
		return EXIT_USAGE;
	}
	return fromhome ? from_home(&si) : login(&si);
}
