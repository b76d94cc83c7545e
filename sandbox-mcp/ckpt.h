/* ckpt: checkpoints, with git as the engine (history.git beside the
 * workspace; refs/heads/main is the line of checkpoints, refs/tags/LABEL
 * the checkpoint labels). I/O. */
#ifndef SBX_CKPT_H
#define SBX_CKPT_H
#include <stddef.h>
#include <stdint.h>

#include "sess.h"

enum { CKPT_ID_MAX = 64 };

/* A new history for a fresh session, with its first (empty) checkpoint. */
int ckpt_init(struct sbx *s, struct sess *ss, char *err, size_t errn);
/* Record the workspace as a checkpoint when it differs from the last one.
 * id gets the latest checkpoint (new or not); *made 1 when one was made. */
int ckpt_commit(struct sbx *s, struct sess *ss, const char *msg, char *id, int *made,
    char *err, size_t errn);
/* Make the workspace exactly checkpoint id's tree (files not in it go). */
int ckpt_checkout(struct sbx *s, struct sess *ss, const char *id, char *err, size_t errn);
/* The checkpoint a checkpoint_id or checkpoint_label names, as a full id.
 * An id of 1 to 6 decimal digits is drun's number: the checkpoint's place
 * on the line, 0 the oldest shown (session_history's "number"). */
int ckpt_resolve(struct sbx *s, struct sess *ss, const char *id, const char *label, char *out,
    char *err, size_t errn);
/* The latest checkpoint's id. */
int ckpt_head(struct sbx *s, struct sess *ss, char *id, char *err, size_t errn);
/* The latest checkpoint read from refs/heads/main directly (no git); -1
 * when that file is not there (packed) or malformed. */
int ckpt_head_fast(struct sess *ss, char *id);
/* 1 when fp is the workspace fingerprint recorded at the last checkpoint. */
int ckpt_fp_same(struct sess *ss, uint64_t fp);
/* Checkpoint id's number on the line (0 the oldest), or -1. */
long ckpt_number(struct sbx *s, struct sess *ss, const char *id);
/* How many checkpoints (history length as shown). */
long ckpt_count(struct sbx *s, struct sess *ss);
/* 1 when label is a valid checkpoint label ([A-Za-z0-9._-], 1-64, not
 * starting with '.' or '-', no "..", not ending in ".lock" or '.'). */
int ckpt_label_ok(const char *label);

/* A session as session_tree shows it: id, label, current, forked_from,
 * and its checkpoints as session_history gives them. */
void ckpt_describe(struct sbx *s, struct sess *ss, struct jw *out);

tool_fn tool_session_history, tool_session_diff, tool_session_rollback, tool_session_checkpoint_label,
    tool_session_checkpoint_squash, tool_session_checkpoint_drop;

#endif
