/*
 * config: sandbox-mcp's configuration, drun's keys. The parser is pure; the
 * loader reads the file fresh on every call and never falls back to the
 * defaults when the file is there but unreadable or malformed.
 */
#ifndef SBX_CONFIG_H
#define SBX_CONFIG_H
#include <stddef.h>
#include <stdint.h>

#include "json.h"

enum {
	CFG_LIST_MAX = 64,		/* entries in one list */
	CFG_STR_MAX = 1024,		/* bytes in one string */
	CFG_FILE_MAX = 1 << 20,
	CFG_TOKENS_MAX = 4096,
};

struct cfg_list {
	char *v[CFG_LIST_MAX];
	int n;
};

struct cfg_ports {
	uint16_t v[CFG_LIST_MAX];
	int n;
};

struct config {
	struct cfg_list mount_allowlist, mount_overlay_paths, domain_allowlist, env_allowlist;
	char *export_root;		/* NULL: export refused */
	char *snapshots_dir;		/* NULL: STORE/snapshots */
	char *package_install_network;	/* NULL, or "open-unfiltered" */
	int64_t fetch_timeout_ms, connect_timeout_ms, package_install_timeout_ms, bash_timeout_ms;
	int64_t max_workspace_mb, max_sessions, max_checkpoints, session_idle_timeout_secs;
	int64_t max_processes, max_memory_mb;	/* each command's tree (0: unbounded) */
	int64_t max_concurrent_calls;		/* --listen: tool calls running at once */
	int package_install_enabled, snapshot_on_close;
	struct cfg_ports package_install_allow_loopback;	/* loopback ports an install may reach */
	/* where it came from */
	char source[CFG_STR_MAX];	/* the file, or "" for the embedded defaults */
};

/* The embedded defaults. */
void config_defaults(struct config *c);
/* Parse buf over the defaults (absent keys keep them). Unknown keys, wrong
 * types and out-of-range numbers are errors. Returns 0, or -1 with err. */
int config_parse(const char *buf, size_t len, struct config *c, struct json_err *err);
void config_free(struct config *c);

/* Load path: no such file gives the defaults (source ""); any other failure
 * to read, or a parse error, returns -1 with a message naming the file
 * (and line and column) in why. "~/" in path entries is expanded with home. */
int config_load(const char *path, const char *home, struct config *c, char *why, size_t whyn);

/* The configuration as a JSON object (for get_config), into a fresh string. */
char *config_json(const struct config *c);

#endif
