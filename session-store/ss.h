/* session-store: the commands. Each returns the exit status. */
#ifndef SS_H
#define SS_H
#include <stdint.h>

#include "profile.h"

struct ss {
	const char *store;		/* the store directory */
	int fd;				/* its descriptor */
	struct profiles prof;
	const char *test_cacert;	/* --test-cacert: the CAs verification trusts (tests) */
	const char *trees;		/* begin --reap, reap: --trees, the runtime
					   directory of attempt trees (rundir.h), or NULL */
};

int ss_begin(struct ss *s, int argc, char **argv);
int ss_end(struct ss *s, int argc, char **argv);
int ss_list(struct ss *s, int argc, char **argv);
int ss_show(struct ss *s, int argc, char **argv);
int ss_put(struct ss *s, int argc, char **argv);
int ss_release(struct ss *s, int argc, char **argv);
int ss_renew(struct ss *s, int argc, char **argv);
int ss_reap(struct ss *s, int argc, char **argv);
int ss_restore(struct ss *s, int argc, char **argv);
int ss_signins(struct ss *s, int argc, char **argv);
int ss_remove(struct ss *s, int argc, char **argv);
int ss_env_set(struct ss *s, int argc, char **argv);
int ss_env_list(struct ss *s, int argc, char **argv);
int ss_env_rm(struct ss *s, int argc, char **argv);
int ss_env_release(struct ss *s, int argc, char **argv);
/* release (env 0) and env-release (env 1): the same command shape */
int ss_release_cmd(struct ss *s, int argc, char **argv, int env);
/* 1 when s is an environment variable name env-filter takes (at most 128) */
int ss_env_name_ok(const char *s);
void ss_usage(int fd);

/* The argument plumbing (args.c). */
/* getopt_long over a command's own arguments; argv[0] is the command. */
#define OPTLOOP(opts) while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1)
/* The command's operand may come first ("release NAME --attempt ID"). */
const char *ss_take_operand(int *argc, char ***argv);
/* The operand (taken first, or the next argument); NULL unless it is the last. */
const char *ss_operand(const char *op, int argc, char **argv);
int ss_usage_err(void);
/* A getopt failure in a command (msg_badopt): EXIT_USAGE. */
int ss_badopt(int c, int argc, char **argv);
int ss_open_sub(struct ss *s, const char *name);
/* creds/ and prev/ together (remove, restore): 0, or the negated exit status
 * after a fatal message, nothing left open. */
int ss_open_creds_prev(struct ss *s, int *cfd, int *pfd);
/* --fd N: a descriptor number, through the one bounded parser. */
int ss_parse_fd(const char *s, int *fd);
/* A file (path, O_NOFOLLOW) or a descriptor, bounded by max; 0, or the exit
 * status after a fatal message naming what. */
int ss_read_source(const char *path, int fd, size_t max, const char *what, char **out, size_t *len);

#endif
