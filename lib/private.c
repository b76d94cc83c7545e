#include <stdio.h>
#include <unistd.h>

#include "private.h"

/* owned by the effective uid, none of mask's bits set */
static int
ours(const struct stat *st, mode_t mask, char *why, size_t n)
{
	if (st->st_uid != geteuid())
		return snprintf(why, n, "owned by uid %u, not by you (uid %u)",
		    (unsigned)st->st_uid, (unsigned)geteuid()), -1;
	if (st->st_mode & mask)
		return snprintf(why, n, "%s by group or others (mode %04o)",
		    st->st_mode & (S_IRGRP | S_IROTH) ? "readable" :
		    st->st_mode & (S_IWGRP | S_IWOTH) ? "writable" : "searchable",
		    (unsigned)(st->st_mode & 07777)), -1;
	return 0;
}

int
private_check(const struct stat *st, char *why, size_t n)
{
	if (!S_ISREG(st->st_mode))
		return snprintf(why, n, "not a regular file"), -1;
	return ours(st, S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH, why, n);
}

int
private_dir_check(const struct stat *st, char *why, size_t n)
{
	if (!S_ISDIR(st->st_mode))
		return snprintf(why, n, "not a directory"), -1;
	return ours(st, 077, why, n);
}
