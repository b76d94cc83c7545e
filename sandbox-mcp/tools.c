#include <stdlib.h>
#include <string.h>

#include "bash.h"
#include "ckpt.h"
#include "files.h"
#include "mounts.h"
#include "pkg.h"
#include "sess.h"
#include "snap.h"
#include "tools.h"

tool_fn tool_get_config, tool_session_export, tool_session_fetch;

#define SID "\"session_id\":{\"type\":\"string\",\"description\":\"a session id (default: the current session)\"}"
#define STR(n, d) "\"" n "\":{\"type\":\"string\",\"description\":\"" d "\"}"
#define INT(n, d) "\"" n "\":{\"type\":\"integer\",\"description\":\"" d "\"}"
#define STRS(n, d) "\"" n "\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"" d "\"}"

const struct tool tools[] = {
	{ "create_session", "Create a session (its own workspace, tmp and checkpoint history) and make it current.",
	    STR("label", "a label for the session"), "[]", tool_create_session },
	{ "session_switch", "Make another session current.", SID, "[\"session_id\"]", tool_session_switch },
	{ "session_list", "List the sessions in the store.", "", "[]", tool_session_list },
	{ "session_close", "Close a session: snapshot it when snapshot_on_close, then remove it.", SID, "[]",
	    tool_session_close },
	{ "get_session_state", "A session's state: workspace size, checkpoints, idle time.", SID, "[]",
	    tool_get_session_state },
	{ "get_config", "The configuration in force, and whether it came from the file or the embedded defaults.",
	    "", "[]", tool_get_config },
	{ "session_bash", "Run a shell command (sh -c) in the session workspace, confined: no network; reads the workspace, the system and PATH directories and the allowlisted mounts; writes only the workspace and the session tmp. File changes become a checkpoint.",
	    STR("command", "the command, run by /bin/sh -c") "," STR("description", "what it does (the checkpoint message)") "," SID,
	    "[\"command\"]", tool_session_bash },
	{ "session_read_file", "Read a workspace file: lines from offset (0-based), at most limit; with pattern (an extended regular expression), only the matching lines.",
	    STR("path", "workspace-relative path") "," INT("offset", "lines to skip") "," INT("limit", "lines to return (default 2000)") ","
	    STR("pattern", "an extended regular expression") "," SID, "[\"path\"]", tool_session_read_file },
	{ "session_read_files", "Read several workspace files whole.", STRS("paths", "workspace-relative paths") "," SID,
	    "[\"paths\"]", tool_session_read_files },
	{ "session_write_files", "Write workspace files (each one atomically; all bounded by max_workspace_mb); a checkpoint follows.",
	    "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}}," SID,
	    "[\"entries\"]", tool_session_write_files },
	{ "session_delete_files", "Delete workspace files or directories; a checkpoint follows.",
	    STRS("paths", "workspace-relative paths") "," SID, "[\"paths\"]", tool_session_delete_files },
	{ "session_history", "The session's checkpoints, newest first, with their labels.", SID, "[]", tool_session_history },
	{ "session_diff", "The difference between two checkpoints (to: default the workspace now; from: default the latest checkpoint).",
	    STR("from_checkpoint_id", "checkpoint id") "," STR("to_checkpoint_id", "checkpoint id") "," STRS("paths", "limit to these paths") "," SID,
	    "[]", tool_session_diff },
	{ "session_rollback", "Make the workspace a checkpoint's again (what it held is kept as a checkpoint first).",
	    STR("checkpoint_id", "checkpoint id") "," STR("checkpoint_label", "checkpoint label") "," SID, "[]", tool_session_rollback },
	{ "session_fork", "A new session from this one (its workspace now, or at checkpoint_id), made current.",
	    STR("checkpoint_id", "checkpoint id") "," STR("label", "the new session's label") "," SID, "[]", tool_session_fork },
	{ "session_label", "Label the session.", STR("label", "the label") "," SID, "[\"label\"]", tool_session_label },
	{ "session_checkpoint_label", "Label a checkpoint (default: the latest).",
	    STR("checkpoint_id", "checkpoint id") "," STR("label", "the label") "," SID, "[\"label\"]", tool_session_checkpoint_label },
	{ "session_mount", "Copy a host file or directory from under a mount_allowlist entry into the workspace; directories named in mount_overlay_paths are made readable in place (read-only) instead.",
	    STR("path", "an absolute host path under a mount_allowlist entry") "," SID, "[\"path\"]", tool_session_mount },
	{ "session_fetch", "Fetch a URL from outside the session (the host must be on domain_allowlist; redirects checked again; loopback, private, link-local and metadata addresses refused after resolution); the body returned or saved to a workspace path.",
	    STR("url", "http or https URL") "," STR("method", "GET (default), POST, PUT, PATCH, DELETE, HEAD") ","
	    "\"headers\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}," STR("body", "the request body") ","
	    STR("save_to", "a workspace path for the body") "," SID, "[\"url\"]", tool_session_fetch },
	{ "session_package_install", "Install packages (pip or npm) in a disposable stage, confined: the network open through the egress broker (loopback, link-local and metadata refused), nothing of the session readable; only on success merged under .packages/MANAGER/ of the workspace (PYTHONPATH or NODE_PATH set for later session_bash calls), a checkpoint follows. Off unless package_install_enabled.",
	    STR("package_manager", "pip or npm") "," STRS("packages", "package names, each with an optional version (no options, paths or URLs)") "," SID,
	    "[\"package_manager\",\"packages\"]", tool_session_package_install },
	{ "session_export", "Copy workspace files (keys: workspace paths; default all) out to output_dir beneath export_root, never through a symlink.",
	    STR("output_dir", "beneath export_root (relative to it, or absolute)") "," STRS("keys", "workspace paths to export") "," SID,
	    "[\"output_dir\"]", tool_session_export },
	{ "session_snapshot", "Write the session to one snapshot file under snapshots_dir.", SID, "[]", tool_session_snapshot },
	{ "list_snapshots", "The snapshots under snapshots_dir.", "", "[]", tool_list_snapshots },
	{ "session_restore", "A new session from a snapshot (a file name list_snapshots gives), made current.",
	    STR("snapshot", "the snapshot's file name") "," STR("label", "the new session's label"), "[\"snapshot\"]", tool_session_restore },
	{ NULL, NULL, NULL, NULL, NULL }
};

const struct tool *
tool_find(const char *name)
{
	for (int i = 0; tools[i].name; i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

const char *
tools_list_json(void)
{
	static struct jw w;

	if (w.b.p)
		return w.b.p;
	jw_open(&w, '{');
	jw_key(&w, "tools");
	jw_open(&w, '[');
	for (int i = 0; tools[i].name; i++) {
		jw_open(&w, '{');
		jw_key(&w, "name");
		jw_str(&w, tools[i].name);
		jw_key(&w, "description");
		jw_str(&w, tools[i].description);
		jw_key(&w, "inputSchema");
		jw_open(&w, '{');
		jw_key(&w, "type");
		jw_str(&w, "object");
		jw_key(&w, "properties");
		jw_raw(&w, "{", 1);
		buf_adds(&w.b, tools[i].schema);
		buf_adds(&w.b, "}");
		jw_key(&w, "required");
		jw_raw(&w, tools[i].required, strlen(tools[i].required));
		jw_close(&w, '}');
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
	return w.err ? NULL : w.b.p;
}
