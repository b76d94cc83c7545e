/* storeattempt: (session-store, home-stage) an attempt's record opened and
 * closed, and the leftovers of dead attempts reaped, under the store's
 * lock: one code path whether session-store begin/end/reap runs it or
 * home-stage create --begin / finish --end (one process fewer on each side
 * of the agent). Each failure is said (msg_fatal, the caller's name) and
 * returned as the negated exit status: -1 refused, -2 error. */
#ifndef CORRAL_STOREATTEMPT_H
#define CORRAL_STOREATTEMPT_H
#include <stdint.h>

#include "store.h"

/* A new, running attempt: id (checked), agent (checked), pid and its start
 * time now (/proc), start now. 0, or -1 with errno (EINVAL, or the
 * process's: ENOENT when it is gone). */
int store_attempt_new(struct attempt *a, const char *id, const char *agent, int64_t pid);
/* Record *a (id, agent, pid, pid_start, start filled) in STORE/attempts
 * (storefd; store names it in messages); an id already recorded is refused.
 * With reap, then the leftovers of dead attempts (store_reap_locked, bound
 * 0), under the same lock; trees: the runtime directory of trees, or NULL.
 * *recorded says whether the record was written (a reap that fails after
 * it fails the call). */
int store_attempt_begin(int storefd, const char *store, const struct attempt *a, int reap, const char *trees,
    int *recorded);
/* End attempt id: status, platform and tier (NULL: none). An attempt not
 * recorded, or ended already, is refused. */
int store_attempt_end(int storefd, const char *store, const char *id, int status, const char *platform,
    const char *tier);
/* Reap, with the store's lock held: records of dead attempts older than
 * bound seconds (and their markers and trees, in the store and in trees),
 * trees left without a record, temp files of killed writes. Each id removed
 * is printed on stdout when print. 0, 1 when something could not be
 * removed (said), or the negated exit status. */
int store_reap_locked(int storefd, const char *store, const char *trees, uint64_t bound, int print);

#endif
