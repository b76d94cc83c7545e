/* streams: a command's stdout and stderr kept per checkpoint (streams.c). */
#ifndef SBX_STREAMS_H
#define SBX_STREAMS_H
#include "buf.h"
#include "sess.h"

/* Keep o and e as checkpoint id's streams (best effort). */
void streams_save(struct sbx *s, struct sess *ss, const char *id, const struct buf *o, const struct buf *e);

/* Keep the session's streams in its history as the tree
 * refs/meta/streams (none: the ref removed), before a snapshot or a fork
 * copies the history; 0, or -1 with a reason. */
int streams_to_history(struct sbx *s, struct sess *ss, char *err, size_t errn);
/* Take them back from refs/meta/streams of a restored or forked history
 * (absent: nothing to do); entries checked, sizes bounded; 0 or -1. */
int streams_from_history(struct sbx *s, struct sess *ss, char *err, size_t errn);

tool_fn tool_checkpoint_read_stdstreams;

#endif
