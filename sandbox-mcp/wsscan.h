/* wsscan: (sandbox-mcp) what a workspace takes and whether it changed,
 * by one walk by descriptor that never follows a symlink. I/O. */
#ifndef SBX_WSSCAN_H
#define SBX_WSSCAN_H
#include <stdint.h>

/* Bytes the workspace takes (regular files' sizes), walking by descriptor
 * without following symlinks; -1 on error. */
int64_t ws_usage(int wsfd);
/* The same, folding every entry's name, inode, mode, size, mtime and ctime
 * into *fp (FNV-1a, start it at WS_FP_INIT): equal to the one recorded
 * at the last checkpoint when nothing changed since, so no git is needed. */
#define WS_FP_INIT 14695981039346656037ULL
int64_t ws_scan(int wsfd, uint64_t *fp);

#endif
