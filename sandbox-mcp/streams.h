/* streams: a command's stdout and stderr kept per checkpoint (streams.c). */
#ifndef SBX_STREAMS_H
#define SBX_STREAMS_H
#include "buf.h"
#include "sess.h"

/* Keep o and e as checkpoint id's streams (best effort). */
void streams_save(struct sbx *s, struct sess *ss, const char *id, const struct buf *o, const struct buf *e);

tool_fn tool_checkpoint_read_stdstreams;

#endif
