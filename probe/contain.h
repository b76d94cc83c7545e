/* contain: the attempts of the checks of issue 11 (checks.c holds their
 * table rows): other processes of the same uid, user namespaces, socket
 * families, other processes' /proc entries. Each appends its results to
 * ob->got (probe_obs) in the order of its table row. */
#ifndef PROBE_CONTAIN_H
#define PROBE_CONTAIN_H
#include "judge.h"
#include "probe.h"

void contain_prlimit(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_setpriority(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_affinity(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_scheduler(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_schedparam(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_schedattr(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_ioprio(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_migrate(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_movepages(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_madvise(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_families(const struct probe_ctx *ctx, struct probe_obs *ob);
void contain_proc(const struct probe_ctx *ctx, struct probe_obs *ob);
/* Last of its child's attempts under the first boundary: in a bare run
 * (tests) the unshare succeeds and the child is in a new user namespace
 * from then on. */
void contain_userns(const struct probe_ctx *ctx, struct probe_obs *ob);

#endif
