#include <stdio.h>
#include <unistd.h>

#include "private.h"

int
private_check(const struct stat *st, char *why, size_t n)
{
	if (!S_ISREG(st->st_mode))
		return snprintf(why, n, "not a regular file"), -1;
	if (st->st_uid != geteuid())
		return snprintf(why, n, "owned by uid %u, not by you (uid %u)",
		    (unsigned)st->st_uid, (unsigned)geteuid()), -1;
	if (st->st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH))
		return snprintf(why, n, "%s by group or others (mode %04o)",
		    st->st_mode & (S_IRGRP | S_IROTH) ? "readable" : "writable",
		    (unsigned)(st->st_mode & 07777)), -1;
	return 0;
}
