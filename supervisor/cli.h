/* cli: the supervisor's commands. Each returns the exit status. */
#ifndef CORRAL_CLI_H
#define CORRAL_CLI_H

#include "plan.h"

struct runopts {
	const char *policy_file;	/* -p */
	const char *agent;		/* -a */
	const char *workspace;		/* -w */
	int full_setup, no_network;
	int git;			/* --worktree / --in-place: enum git_mode; -1: the policy's */
	int from_head;			/* --from-head */
	const char *profiles_file;	/* --profiles: agent profiles over the embedded ones */
	const char *test_cacert;	/* --test-cacert: the CAs verification trusts (tests) */
	int quiet;			/* --quiet: the run-files report in the audit log only */
	int allow_osc[16];		/* --allow-osc N: OSC numbers the pty relay lets through */
	int nallow_osc;
	const char *env_project;	/* --env PROJECT: its values, released once */
	int fresh;			/* corral signin: no stored sign-in staged */
	char **cmd;
};

/* Parse [-p POLICY] [-a AGENT] [-w WORKSPACE] [--full-setup] [--no-network]
 * [--worktree | --in-place] [--from-head] [--] CMD... Returns 0, 1 when --help was printed, -1 on a usage error
 * (already reported). */
int runopts_parse(int argc, char **argv, struct runopts *o);
/* The default, the file over it, then the options. -1: reported (the
 * caller picks the status). */
int policy_load(const struct runopts *o, struct policy *p);
/* Read and parse one policy file over p; report errors as FILE:LINE:COL.
 * Returns 0, -1 invalid, -2 unreadable. */
int policy_load_file(const char *path, struct policy *p);
struct polsrc;
/* The same, noting what was read into src (NULL: not noted; trustpol.h). */
int policy_load_src(const char *path, struct policy *p, struct polsrc *src);
int policy_load_from(const struct runopts *o, struct policy *p, struct polsrc *src);

/* policy_load + plan_resolve, reported. -1 on failure. */
int plan_load(const struct runopts *o, char *const envp[], struct policy *pol, struct plan *pl,
    int quiet_warnings);
/* The same on a plan that is all zero (plan_load zeroes it; corral run's
 * is static, untouched before); early (not NULL) is called once the policy is loaded and
 * pl->stepdir and pl->pol are set, before the paths are resolved (corral
 * run starts the proof there, which needs no more): 0 goes on, -1 (said)
 * fails the load. */
int plan_load_early(const struct runopts *o, char *const envp[], struct policy *pol, struct plan *pl,
    int quiet_warnings, int (*early)(struct plan *, void *), void *arg);

int cmd_run(int argc, char **argv, char **envp);
int cmd_explain(int argc, char **argv, char **envp);
int cmd_doctor(int argc, char **argv, char **envp);
int cmd_policy(int argc, char **argv, char **envp);
int cmd_why(int argc, char **argv, char **envp);
int cmd_apply(int argc, char **argv, char **envp);	/* gitapply.c */
int cmd_branches(int argc, char **argv, char **envp);
int cmd_env(int argc, char **argv, char **envp);
int cmd_signin(int argc, char **argv, char **envp);
/* corral run with parsed options; after (may be NULL) runs once every
 * process of the attempt has ended, before the attempt closes, and its
 * return value becomes the status (corral signin takes the sign-in). */
struct plan;
int run_attempt(const struct runopts *o, char **envp, int (*after)(const struct plan *, int, void *), void *arg);
/* 1: corral run starts the chain beside the proof (held at confine
 * --gate); 0: after it, the policy's proxies or project environment
 * first (run.c). */
int run_chain_early(const struct plan *pl);

void usage_run(int fd);

#include <stdio.h>
/* The script corral explain prints (tests call it). */
int explain_print(FILE *f, const struct plan *pl);
/* tool: the plan's notes (install trees, toolchains, PATH left out), one per line after pre. */
void notes_print(FILE *f, const char *pre, const struct plan *pl);

#endif
