/* clock: the time in milliseconds, the one copy. */
#ifndef CORRAL_CLOCK_H
#define CORRAL_CLOCK_H
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC for deadlines and durations, CLOCK_REALTIME for
 * timestamps (audit lines, records). */
int64_t clock_ms(clockid_t id);
/* The time by the system call itself, not the vDSO: for a process that
 * asks once or twice (a record's timestamp, a snapshot's start). The
 * vDSO's first use costs three page faults and a symbol lookup, about
 * 3 us here, more than a call; a loop asks clock_ms. */
int clock_once(clockid_t id, struct timespec *ts);
/* clock_once(CLOCK_REALTIME) in seconds: time(NULL) without the vDSO. */
int64_t clock_once_s(void);

#endif
