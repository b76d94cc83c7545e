#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bash.h"
#include "ckpt.h"
#include "files.h"
#include "mounts.h"
#include "pkg.h"
#include "sess.h"
#include "snap.h"
#include "streams.h"
#include "tools.h"

tool_fn tool_get_config, tool_session_export, tool_session_fetch, tool_delete_from_host, tool_get_system_instructions,
    tool_session_get_env, tool_session_tree, tool_session_chat_record, tool_session_merge, tool_session_extract_text;

#define SID "\"session_id\":{\"type\":\"string\",\"description\":\"a session id (default: the current session)\"}"
#define STR(n, d) "\"" n "\":{\"type\":\"string\",\"description\":\"" d "\"}"
#define INT(n, d) "\"" n "\":{\"type\":\"integer\",\"description\":\"" d "\"}"
#define STRS(n, d) "\"" n "\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"" d "\"}"
/* a checkpoint: its id (hex) or its number in session_history (0 the oldest) */
#define CKID(n) "\"" n "\":{\"type\":[\"string\",\"integer\"],\"description\":\"a checkpoint id (hex), or its number in session_history (0 the oldest)\"}"
#define CKLABEL(n) STR(n, "a checkpoint label (wins over the id when both are given)")
/* drun's description argument: what the call is for (a checkpoint message) */
#define DESC STR("description", "what the call is for (kept as the checkpoint message where one is made)")

const struct tool tools[] = {
	{ "create_session", "Create a session (its own workspace, tmp and checkpoint history) and make it current.",
	    STR("label", "a label for the session"), "[]", tool_create_session },
	{ "session_switch", "Make another session current.", SID, "[\"session_id\"]", tool_session_switch },
	{ "session_list", "List the sessions in the store.", "", "[]", tool_session_list },
	{ "session_close", "Close a session: snapshot it when snapshot_on_close, then remove it.", SID, "[]",
	    tool_session_close },
	{ "get_session_state", "A session's state: workspace size, checkpoints, idle time.", SID "," DESC, "[]",
	    tool_get_session_state },
	{ "get_config", "The configuration in force, and whether it came from the file or the embedded defaults.",
	    "", "[]", tool_get_config },
	{ "session_bash", "Run a shell command (sh -c) in the session workspace, confined: no network; reads the workspace, the system and PATH directories and the allowlisted mounts; writes only the workspace and the session tmp. File changes become a checkpoint.",
	    STR("command", "the command, run by /bin/sh -c") "," STR("description", "what it does (the checkpoint message)") "," SID,
	    "[\"command\"]", tool_session_bash },
	{ "session_read_file", "Read a workspace file, as drun: limit bytes from byte offset (default all); with pattern (an extended regular expression), the matching lines within them with their line numbers and byte offsets. Bytes that are not UTF-8 text come back as base64 (encoding: base64).",
	    STR("path", "workspace-relative path") "," INT("offset", "byte offset") "," INT("limit", "bytes to return (default all)") ","
	    STR("pattern", "an extended regular expression") "," DESC "," SID, "[\"path\"]", tool_session_read_file },
	{ "session_read_files", "Read several workspace files whole.", STRS("paths", "workspace-relative paths") "," DESC "," SID,
	    "[\"paths\"]", tool_session_read_files },
	{ "session_write_files", "Write workspace files (each one atomically; all bounded by max_workspace_mb); a checkpoint follows. is_base64 on an entry: its content is standard base64, decoded and written byte for byte.",
	    "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},\"is_base64\":{\"type\":\"boolean\"}},\"required\":[\"path\",\"content\"],\"additionalProperties\":false}}," DESC "," SID,
	    "[\"entries\"]", tool_session_write_files },
	{ "session_delete_files", "Delete workspace files or directories; a checkpoint follows.",
	    STRS("paths", "workspace-relative paths") "," DESC "," SID, "[\"paths\"]", tool_session_delete_files },
	{ "session_history", "The session's checkpoints, newest first, with their numbers (0 the oldest) and labels.", SID "," DESC, "[]", tool_session_history },
	{ "session_diff", "The difference between two checkpoints (to: default the workspace now; from: default the latest checkpoint).",
	    CKID("from_checkpoint_id") "," CKLABEL("from_checkpoint_label") "," CKID("to_checkpoint_id") "," CKLABEL("to_checkpoint_label") ","
	    STRS("paths", "limit to these paths") "," DESC "," SID,
	    "[]", tool_session_diff },
	{ "session_rollback", "Make the workspace a checkpoint's again (what it held is kept as a checkpoint first).",
	    CKID("checkpoint_id") "," CKLABEL("checkpoint_label") "," DESC "," SID, "[]", tool_session_rollback },
	{ "session_fork", "A new session from this one (its workspace now, or at checkpoint_id or checkpoint_label), made current.",
	    CKID("checkpoint_id") "," CKLABEL("checkpoint_label") "," STR("label", "the new session's label") "," SID, "[]", tool_session_fork },
	{ "session_label", "Label the session.", STR("label", "the label") "," SID, "[\"label\"]", tool_session_label },
	{ "session_checkpoint_label", "Label a checkpoint (default: the latest).",
	    CKID("checkpoint_id") "," STR("label", "the label") "," DESC "," SID, "[\"label\"]", tool_session_checkpoint_label },
	{ "session_mount", "Copy a host file or directory from under a mount_allowlist entry into the workspace; directories named in mount_overlay_paths are made readable in place (read-only) instead.",
	    STR("path", "an absolute host path under a mount_allowlist entry") "," DESC "," SID, "[\"path\"]", tool_session_mount },
	{ "session_fetch", "Fetch a URL from outside the session (the host must be on domain_allowlist; every redirect checked again; loopback, private, link-local and metadata addresses refused after resolution). As drun: saved under downloads/HOST/PAGE/ in the workspace with a manifest.json, and for an HTML page its stylesheets, icons, scripts and images too (GET, without the page's headers; each checked like the page; at most 64, 16 MiB with the page, fetch_timeout_ms for all); what was not fetched is listed, skipped or failed, with why. Written atomically, within max_workspace_mb, never through a symlink. Or the body to one workspace path (save_to), or returned (inline).",
	    STR("url", "http or https URL") "," STR("method", "GET (default), POST, PUT, PATCH, DELETE, HEAD") ","
	    "\"headers\":{\"type\":[\"object\",\"array\"],\"description\":\"an object of name: value, or drun's array of {name, value}\"}," STR("body", "the request body") ","
	    STR("save_to", "a workspace path for the body instead of the downloads folder (no assets)") ","
	    "\"assets\":{\"type\":\"boolean\",\"description\":\"for an HTML page saved in the downloads folder, fetch its assets too (default true, as drun)\"},"
	    "\"inline\":{\"type\":\"boolean\",\"description\":\"return the body (up to 1 MiB) in the result and save nothing\"}," DESC "," SID,
	    "[\"url\"]", tool_session_fetch },
	{ "session_package_install", "Install packages (pip or npm) in a disposable stage, confined: the network open through the egress broker (loopback, link-local and metadata refused), nothing of the session readable; only on success merged under .packages/MANAGER/ of the workspace (PYTHONPATH or NODE_PATH set for later session_bash calls), a checkpoint follows. Off unless package_install_enabled.",
	    STR("package_manager", "pip or npm") "," STRS("packages", "package names, each with an optional version (no options, paths or URLs)") "," DESC "," SID,
	    "[\"package_manager\",\"packages\"]", tool_session_package_install },
	{ "session_export", "Copy workspace files (keys: workspace paths; default all) out to output_dir beneath export_root, never through a symlink.",
	    STR("output_dir", "beneath export_root (relative to it, or absolute)") "," STRS("keys", "workspace paths to export") "," DESC "," SID,
	    "[\"output_dir\"]", tool_session_export },
	{ "session_snapshot", "Write the session to one snapshot file under snapshots_dir (a fresh name, or drun's path: a file directly in snapshots_dir, replaced).",
	    STR("path", "the snapshot's path, directly in snapshots_dir, ending in .bundle or .drun") "," DESC "," SID, "[]", tool_session_snapshot },
	{ "list_snapshots", "The snapshots under snapshots_dir.", "", "[]", tool_list_snapshots },
	{ "session_restore", "A new session from a snapshot (a file name list_snapshots gives, or drun's path: a file directly in snapshots_dir), made current.",
	    STR("snapshot", "the snapshot's file name") "," STR("path", "the snapshot's path, directly in snapshots_dir") "," STR("label", "the new session's label"), "[]", tool_session_restore },
	{ "session_extract_text", "Extract the text of a PDF in the workspace into a file (save_to, default path + .txt): pdftotext runs on it inside the boundary like a session_bash command; refused when the server has no pdftotext (the server never parses a document itself).",
	    STR("path", "workspace-relative path of the document") "," STR("save_to", "workspace-relative path for the text") "," DESC "," SID,
	    "[\"path\"]", tool_session_extract_text },
	{ "delete_from_host", "Delete a host file or directory beneath export_root (never the root itself, never a .git, reached without following a link; a link itself is removed, never what it names). Gone already: a no-op.",
	    STR("path", "beneath export_root (relative to it, or absolute)"), "[\"path\"]", tool_delete_from_host },
	{ "session_tree", "Every session with its checkpoints, forks nested under the session they came from.", "", "[]", tool_session_tree },
	{ "get_system_instructions", "The guide to these tools: getting started, picking up a session, what each group does.", "", "[]",
	    tool_get_system_instructions },
	{ "session_get_env", "Read a host environment variable named on env_allowlist (what commands get in their environment already).",
	    STR("name", "the variable's name"), "[\"name\"]", tool_session_get_env },
	{ "session_checkpoint_squash", "Fold checkpoints from..to (1 or later) into one, keeping to's files; ids do not change; a label for the result.",
	    CKID("from_checkpoint_id") "," CKID("to_checkpoint_id") "," STR("label", "a label for the squashed checkpoint") "," DESC "," SID,
	    "[\"from_checkpoint_id\",\"to_checkpoint_id\"]", tool_session_checkpoint_squash },
	{ "session_checkpoint_drop", "Take checkpoints from..to (1 or later, not the latest) out of the history; the later ones keep their files.",
	    CKID("from_checkpoint_id") "," CKID("to_checkpoint_id") "," DESC "," SID,
	    "[\"from_checkpoint_id\",\"to_checkpoint_id\"]", tool_session_checkpoint_drop },
	{ "session_merge", "Lay the files of another session's checkpoint (default its latest; keys: only these paths) over this session's workspace, as a new checkpoint.",
	    STR("source_session_id", "the session merged from") "," CKID("source_checkpoint_id") "," CKLABEL("source_checkpoint_label") ","
	    STRS("keys", "workspace paths to merge (default all)") "," DESC "," SID, "[\"source_session_id\"]", tool_session_merge },
	{ "checkpoint_read_stdstreams", "Read the stdout or stderr of the last session_bash whose files a checkpoint holds (default: the latest checkpoint, stdout): byte offset and limit, or with pattern (an extended regular expression) the matching lines with their line numbers and byte offsets.",
	    CKID("checkpoint_id") "," STR("stream", "stdout (default) or stderr") "," INT("offset", "byte offset") ","
	    INT("limit", "bytes to return (default all)") "," STR("pattern", "an extended regular expression") "," DESC "," SID,
	    "[]", tool_checkpoint_read_stdstreams },
	{ "session_chat_record", "Record a prompt and response in the session's chat log (kept in its history, so snapshots carry it); drun's chat CLI calls it.",
	    STR("prompt", "the user's prompt") "," STR("response", "the agent's response") "," SID, "[\"prompt\",\"response\"]",
	    tool_session_chat_record },
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

int
tool_takes(const struct tool *t, const char *js, const jsmntok_t *key)
{
	jsmntok_t tk[256];
	char sch[8192];
	int n, k;

	if (snprintf(sch, sizeof sch, "{%s}", t->schema) >= (int)sizeof sch ||
	    (n = json_parse(sch, strlen(sch), tk, 256)) < 1)
		return 0;	/* cannot happen with the table above: refuse */
	k = 1;
	for (int i = 0; i < tk[0].size; i++) {
		if (key->end - key->start == tk[k].end - tk[k].start &&
		    memcmp(js + key->start, sch + tk[k].start, (size_t)(key->end - key->start)) == 0)
			return 1;
		k = json_next(tk, k + 1);
	}
	return 0;
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
