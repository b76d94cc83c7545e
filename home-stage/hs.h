/* home-stage: create and finish an attempt's synthetic home. */
#ifndef HS_H
#define HS_H
#include "profile.h"
#include "store.h"

struct hs_opts {
	const char *state, *attempt, *agent, *signin, *workspace;
	const char *trees;		/* create: where the tree goes (rundir.h);
					   NULL: the state directory */
	const char *nonce;		/* create --nonce: the tree's name's, or NULL
					   (random) */
	const char *profiles_file;	/* passed on to session-store */
	const char *session_store;	/* absolute path of session-store */
	const char *test_cacert;	/* passed on to session-store (tests) */
	int full_setup;
	unsigned wait_record;		/* create: seconds to wait for begin's record */
	int begin;			/* create --begin: record the attempt itself */
	int pid;			/* create --pid: whose attempt (0: the parent) */
	const char *end;		/* finish --end: the attempt to end, or NULL */
	int status;			/* ... with --status (-1: not given) */
	int status_input;		/* ... --status -: after the go byte */
	int wait_input;			/* finish --wait-input: the go byte first */
	const char *platform, *tier;	/* ... and --platform, --tier (or NULL) */
	int finish;			/* create --finish: then finish its tree, as
					   finish --wait-input --end ID --status - */
	int labels_input;		/* ... the platform and the tier may follow
					   the status on its input (into labels) */
	char labels[2][STORE_LABEL_MAX + 1];
	int prof_loaded;		/* prof holds the profiles: 1 all (finish loads
					   them only when it takes a sign-in back), 2
					   those that give create its agent's
					   (profiles_load_for) */
	struct profiles prof;
	char *const *envp;		/* the caller's, for HOME and XDG_CONFIG_HOME */
};

int hs_create(struct hs_opts *o);
int hs_finish(struct hs_opts *o, const char *dir);
/* Load the profiles (embedded, then --profiles) into o->prof once: 0, or
 * -1 said. With agent, only as many as give that agent's profile
 * (profiles_load_for: the same profile, the same errors). */
int hs_profiles(struct hs_opts *o, const char *agent);

#endif
