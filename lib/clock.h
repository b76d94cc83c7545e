/* clock: the time in milliseconds, the one copy. */
#ifndef CORRAL_CLOCK_H
#define CORRAL_CLOCK_H
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC for deadlines and durations, CLOCK_REALTIME for
 * timestamps (audit lines, records). */
int64_t clock_ms(clockid_t id);

#endif
