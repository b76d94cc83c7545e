/* clock: see clock.h. */
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"

int64_t
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
clock_once(clockid_t id, struct timespec *ts)
{
	return (int)syscall(SYS_clock_gettime, id, ts);
}

int64_t
clock_once_s(void)
{
	struct timespec ts;

	if (clock_once(CLOCK_REALTIME, &ts) != 0)
		return (int64_t)time(NULL);
	return (int64_t)ts.tv_sec;
}
