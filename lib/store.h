/*
 * store: the session store's layout and records, shared by session-store
 * and home-stage.
 *
 *   STORE/            0700, owned by the caller, never group/world-writable
 *     .lock           flock(2) for every read-modify-write
 *     attempts/ID     one JSON record per attempt
 *     creds/NAME      a header line (JSON: agent, account) then the secret
 *     released/ID.NAME  O_EXCL marker: NAME was released for attempt ID
 *     env/PROJECT     a project's environment: NAME=VALUE lines (0600)
 *     aNONCE/         home-stage's tree of one attempt, here or (rundir.h) in
 *                     $XDG_RUNTIME_DIR/corral/:
 *       store         in the runtime directory, the store's key, written
 *                     first (rundir.h); a tree in the store has none
 *       id            its attempt id, written next; home/ config/ tmp/ the agent's
 */
#ifndef CORRAL_STORE_H
#define CORRAL_STORE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

enum {
	STORE_ID_LEN = 32,		/* 128 bits, lowercase hex */
	STORE_TREE_NONCE_LEN = 10,	/* 40 bits, lowercase hex: an attempt's tree */
	STORE_PATH_SOCKET_MAX = 40,	/* a longer STORE leaves codex's socket no room */
	STORE_LABEL_MAX = 32,
	STORE_RECORD_MAX = 4096,
	STORE_SECRET_MAX = 1 << 20,	/* a secret or sign-in, bytes */
};

/* $XDG_STATE_HOME/corral, else $HOME/.local/state/corral (both absolute). */
int store_default_path(char *const envp[], char *out, size_t n);
/* Open the store directory (creating it 0700, and missing parents 0700, when
 * create), never through a symlink at its last component, and check it.
 * Returns a directory fd, or -1 with a reason in err. */
int store_open(const char *path, int create, char *err, size_t errn);
/* A directory fit to hold secrets: ours, not group- or world-writable. */
int store_check(int fd, char *err, size_t errn);
/* Open (creating 0700 when create) a subdirectory, checked likewise. */
int store_subdir(int storefd, const char *name, int create, char *err, size_t errn);
/* Take the store's exclusive lock; returns the fd to close to release it. */
int store_lock(int storefd);

int store_id_ok(const char *s);		/* 32 lowercase hex digits */
int store_label_ok(const char *s);	/* [A-Za-z0-9._:+-]{1,32} */
/* An attempt's tree is STORE/aNONCE: short, because the agent's HOME is
 * TREE/home and a unix socket's path has 107 bytes (codex binds
 * ~/.codex/app-server-control/app-server-control.sock, 50 of them), so
 * STORE may be 40 bytes long. Which attempt it belongs to is in TREE/id,
 * which only home-stage writes (the agent gets home, config and tmp). */
int store_tree_name_ok(const char *name, size_t len);
/* Read STORE/NAME/id into id (33 bytes); -1 with errno when NAME is not a
 * tree's name or its id is missing or malformed. */
int store_tree_id(int storefd, const char *name, char *id);
/* When path p is DIR/aNONCE or beneath it (DIR a directory of trees: the
 * store, or the runtime one of rundir.h), what follows aNONCE ("" or
 * "/..."); else NULL. Pure. */
const char *store_tree_rest(const char *dir, const char *p);

struct attempt {
	char id[STORE_ID_LEN + 1];
	char agent[PROF_NAME_MAX + 1];
	int64_t start;			/* seconds since the epoch */
	int64_t pid;
	uint64_t pid_start;		/* /proc/PID/stat starttime, against pid reuse */
	int ended;
	int64_t end;
	int status;
	char platform[STORE_LABEL_MAX + 1];
	char tier[STORE_LABEL_MAX + 1];
};
/* Pure. format returns the length (< n) or -1 ENOSPC. */
int attempt_format(const struct attempt *a, char *buf, size_t n);
int attempt_parse(const char *buf, size_t len, struct attempt *a);

struct credhdr {
	char agent[PROF_NAME_MAX + 1];		/* "" for an opaque secret */
	char account[PROF_ACCOUNT_MAX];
	int64_t since;				/* when put stored it (0: unknown) */
	int64_t renewed;			/* the last renewal taken back (0: none) */
};
/* Pure. The header line, newline included. */
int cred_header_format(const struct credhdr *h, char *buf, size_t n);
/* Split a stored credential: header into h, *off = where the secret starts. */
int cred_split(const char *buf, size_t len, struct credhdr *h, size_t *off);

/* Read and check attempts/ID (afd is the attempts directory). */
int store_read_attempt(int afd, const char *id, struct attempt *a);
/* Release credential name for attempt id into descriptor out, at most once
 * per attempt: an O_EXCL marker in released/ exists before a byte leaves.
 * Returns 0; 1 refused (no such attempt or credential, attempt ended,
 * already released), reason in err; -1 system error, reason in err. */
int store_release(int storefd, const char *name, const char *id, int out, char *err, size_t errn);
/* The same for a project's environment, env/PROJECT (NAME=VALUE lines, no
 * header); its marker is released/ID.env:PROJECT. */
int store_release_env(int storefd, const char *project, const char *id, int out, char *err, size_t errn);

/* /proc/PID/stat's starttime, or -1 (ENOENT: no such process). */
int proc_starttime(int64_t pid, uint64_t *out);

#endif
