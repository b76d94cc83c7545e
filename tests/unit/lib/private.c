/* lib/private: the one "private enough" for a file (a secret) and for a
 * directory (a session's, the attempt repositories'), each refusal beside
 * its control. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "tap.h"

static struct stat
mk(mode_t type_mode, uid_t uid)
{
	struct stat st;

	memset(&st, 0, sizeof st);
	st.st_mode = type_mode;
	st.st_uid = uid;
	return st;
}

int
main(void)
{
	char why[128];
	uid_t me = geteuid();
	struct stat st;

	st = mk(S_IFREG | 0600, me);
	is_int(private_check(&st, why, sizeof why), 0, "a file 0600 of ours");
	st = mk(S_IFREG | 0710, me);
	is_int(private_check(&st, why, sizeof why), 0, "a file: an execute bit for the group is no read");
	st = mk(S_IFREG | 0640, me);
	is_int(private_check(&st, why, sizeof why), -1, "a file readable by the group");
	is_str(why, "readable by group or others (mode 0640)", "... says so");
	st = mk(S_IFREG | 0602, me);
	is_int(private_check(&st, why, sizeof why), -1, "a file writable by others");
	is_str(why, "writable by group or others (mode 0602)", "... says so");
	st = mk(S_IFREG | 0600, me + 1);
	is_int(private_check(&st, why, sizeof why), -1, "a file of another uid");
	st = mk(S_IFDIR | 0700, me);
	is_int(private_check(&st, why, sizeof why), -1, "a directory is not a private file");

	is_int(private_dir_check(&st, why, sizeof why), 0, "a directory 0700 of ours");
	st = mk(S_IFDIR | 0710, me);
	is_int(private_dir_check(&st, why, sizeof why), -1, "a directory the group may search");
	is_str(why, "searchable by group or others (mode 0710)", "... says so");
	st = mk(S_IFDIR | 0755, me);
	is_int(private_dir_check(&st, why, sizeof why), -1, "a directory others may read");
	st = mk(S_IFDIR | 0700, me + 1);
	is_int(private_dir_check(&st, why, sizeof why), -1, "a directory of another uid");
	ok(strncmp(why, "owned by uid ", 13) == 0, "... says whose");
	st = mk(S_IFREG | 0600, me);
	is_int(private_dir_check(&st, why, sizeof why), -1, "a file is not a private directory");
	is_str(why, "not a directory", "... says so");
	return done_testing();
}
