/* session_extract_text: drun parses a PDF inside its own server. Here a
 * document the agent supplied is never parsed by the server: pdftotext
 * (poppler-utils), when the server's PATH has it, runs on it inside the
 * boundary, exactly as a session_bash command would (the same chain, the
 * same limits, a checkpoint after); without it the call is refused,
 * saying so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bash.h"
#include "buf.h"
#include "json.h"
#include "jw.h"
#include "wspath.h"

tool_fn tool_session_extract_text;

/* s single-quoted for sh (a ' becomes '\'') */
static void
squote(struct buf *b, const char *s)
{
	buf_adds(b, "'");
	for (; *s; s++)
		buf_adds(b, *s == '\'' ? "'\\''" : (char[]){ *s, 0 });
	buf_adds(b, "'");
}

int
tool_session_extract_text(struct sbx *s, const struct targs *a, struct jw *out, char *err, size_t errn)
{
	char path[WS_PATH_MAX + 1], save[WS_PATH_MAX + 8], sid[64];
	struct buf cmd = { 0 };
	struct jw args = { 0 };
	jsmntok_t t[16];
	struct targs ba;
	int n, rc;

	if (arg_str(a, "path", 1, path, sizeof path, err, errn) < 0 || ws_path_check(path, err, errn) < 0 ||
	    arg_str(a, "save_to", 0, save, sizeof save, err, errn) < 0 ||
	    arg_str(a, "session_id", 0, sid, sizeof sid, err, errn) < 0)
		return -1;
	if (!save[0] && snprintf(save, sizeof save, "%s.txt", path) >= (int)sizeof save)
		return sbx_err(err, errn, "path %s: too long for its .txt", path);
	if (ws_path_check(save, err, errn) < 0)
		return -1;
	if (!chain_on_path(s, "pdftotext"))
		return sbx_err(err, errn, "no text extractor here: pdftotext (poppler-utils) is not on the server's PATH; the server never parses a document itself (install poppler-utils, or convert with session_bash)");
	buf_adds(&cmd, "pdftotext -q -enc UTF-8 -- ");
	squote(&cmd, path);
	buf_adds(&cmd, " ");
	squote(&cmd, save);
	/* the same call session_bash gets: {"command", "description", "session_id"} */
	jw_open(&args, '{');
	jw_key(&args, "command");
	jw_strn(&args, cmd.p ? cmd.p : "", cmd.len);
	jw_key(&args, "description");
	jw_str(&args, "session_extract_text");
	if (sid[0]) {
		jw_key(&args, "session_id");
		jw_str(&args, sid);
	}
	jw_close(&args, '}');
	buf_free(&cmd);
	if (args.err || (n = json_parse(args.b.p, args.b.len, t, 16)) < 1) {
		buf_free(&args.b);
		return sbx_err(err, errn, "out of memory");
	}
	ba = (struct targs){ args.b.p, t, 0 };
	jw_key(out, "path");
	jw_str(out, path);
	jw_key(out, "saved_to");
	jw_str(out, save);
	rc = tool_session_bash(s, &ba, out, err, errn);
	buf_free(&args.b);
	return rc;
}
