/* files: the workspace file tools. Every path is checked (wspath) before
 * anything is touched; writes are bounded by max_workspace_mb and atomic
 * (a temporary file in the session's stage/, renamed into place). */
#ifndef SBX_FILES_H
#define SBX_FILES_H
#include <stddef.h>

#include "sbx.h"

enum {
	FILE_READ_MAX = 8 << 20,	/* a file read whole */
	FILES_OUT_MAX = 16 << 20,	/* all of one session_read_files answer */
	FILE_WRITE_MAX = 64 << 20,	/* one entry's content */
};

struct sess;
/* Write path (checked) in the workspace atomically: a temporary file in
 * stage/, synced, renamed into place; parents made 0755. */
int files_put(struct sess *ss, const char *path, const char *data, size_t len, char *err, size_t errn);

/* The same for n files together: every folder reached without a symlink,
 * then every file written to stage/, then each renamed into place; on an
 * error before the renames nothing is placed and no temporary is left. */
int files_put_all(struct sess *ss, int n, char *const *paths, char *const *data, const size_t *lens,
    char *err, size_t errn);

tool_fn tool_session_read_file, tool_session_read_files, tool_session_write_files,
    tool_session_delete_files;

#endif
