/* num: the one bounded number parser. Pure. */
#ifndef CORRAL_NUM_H
#define CORRAL_NUM_H
#include <stdint.h>

/* Decimal only, no sign, no spaces, no empty string; min <= value <= max.
 * Returns 0, or -1 with errno EINVAL (not a number) or ERANGE (out of bounds). */
int num_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int num_parse_int(const char *s, int min, int max, int *out);	/* same, for non-negative int ranges */
/* A descriptor number, the one rule for every --*-fd option: decimal,
 * 0 to NUM_FD_MAX (the kernel's fs.nr_open ceiling). Pure: whether it is
 * open is the caller's check. */
#define NUM_FD_MAX (1 << 20)
int num_parse_fd(const char *s, int *fd);
/* Durations: a number with an optional unit s, m, h, d ("90", "15m", "7d"); result in seconds. */
int num_parse_duration(const char *s, uint64_t *secs);

#endif
