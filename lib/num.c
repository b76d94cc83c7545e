#include <errno.h>
#include <limits.h>
#include <stddef.h>

#include "num.h"

static int
parse_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0)
		return errno = EINVAL, -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return errno = EINVAL, -1;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return errno = ERANGE, -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int
num_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	size_t n = 0;

	if (s == NULL)
		return errno = EINVAL, -1;
	while (s[n] != '\0')
		n++;
	if (parse_digits(s, n, &v) < 0)
		return -1;
	if (v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}

int
num_parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;

	if (min < 0 || max < min)
		return errno = EINVAL, -1;
	if (num_parse_u64(s, (uint64_t)min, (uint64_t)max, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

int
num_parse_duration(const char *s, uint64_t *secs)
{
	uint64_t v, mul = 1;
	size_t n = 0;

	if (s == NULL)
		return errno = EINVAL, -1;
	while (s[n] != '\0')
		n++;
	if (n > 0) {
		switch (s[n - 1]) {
		case 's': mul = 1; n--; break;
		case 'm': mul = 60; n--; break;
		case 'h': mul = 3600; n--; break;
		case 'd': mul = 86400; n--; break;
		}
	}
	if (parse_digits(s, n, &v) < 0)
		return -1;
	if (v > UINT64_MAX / mul)
		return errno = ERANGE, -1;
	*secs = v * mul;
	return 0;
}

int
num_parse_fd(const char *s, int *fd)
{
	return num_parse_int(s, 0, NUM_FD_MAX, fd);
}
