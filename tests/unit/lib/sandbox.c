/* sandbox: the ABI table, rights masks, the seccomp assembler. */
#include <string.h>
#include "landlock.h"
#include "sandbox.h"
#include "seccomp_util.h"
#include "tap.h"

int
main(void)
{
	struct sb_policy p;
	struct sf_prog f;
	size_t i;

	for (i = 0; i < SB_F_COUNT; i++)
		is_int(sb_abi_table[i].feature, i, "table row %zu in enum order", i);
	is_int(sb_feature_abi(SB_F_NET), 4, "TCP rules need ABI 4");
	is_int(sb_feature_abi(SB_F_SCOPE), 6, "scoping needs ABI 6");
	is_int(sb_feature_abi(SB_F_IOCTL_DEV), 5, "device ioctl needs ABI 5");
	is_int(sb_feature_abi(SB_F_TRUNCATE), 3, "truncate needs ABI 3");
	ok(sb_abi() >= 6, "this machine has Landlock ABI >= 6 (%d)", sb_abi());

	is_int(sb_fs_handled(0), 0, "ABI 0 handles nothing");
	is_int(sb_fs_handled(1), 0x1fff, "ABI 1 handles 13 rights");
	is_int(sb_fs_handled(2), 0x3fff, "ABI 2 adds refer");
	is_int(sb_fs_handled(3), 0x7fff, "ABI 3 adds truncate");
	is_int(sb_fs_handled(5), 0xffff, "ABI 5 adds ioctl_dev");
	is_int(sb_fs_handled(7), 0xffff, "ABI 7 no new fs right");
	is_int(sb_fs_access(SB_R, 1, 7), LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, "r");
	is_int(sb_fs_access(SB_R, 0, 7), LANDLOCK_ACCESS_FS_READ_FILE, "r on a file");
	is_int(sb_fs_access(SB_X, 0, 7), LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE, "x on a file");
	ok(!(sb_fs_access(SB_W, 1, 7) & LANDLOCK_ACCESS_FS_EXECUTE), "w has no execute");
	ok(!(sb_fs_access(SB_W, 1, 7) & (LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)), "w has no device rights");
	ok(sb_fs_access(SB_W, 1, 7) & LANDLOCK_ACCESS_FS_TRUNCATE, "w truncates");
	ok(!(sb_fs_access(SB_W, 1, 2) & LANDLOCK_ACCESS_FS_TRUNCATE), "not on ABI 2");
	is_int(sb_fs_access(SB_WALL, 1, 7), 0xffff, "W is everything");
	is_int(sb_fs_access(SB_WALL, 0, 7), 0xc007, "W on a file: file rights only");

	sb_policy_init(&p);
	is_int(sb_policy_add_path(&p, "/x", 0, 0), -1, "no rights: refused");
	is_int(sb_policy_add_path(&p, "/x", SB_R, 4), -1, "unknown flag: refused");
	is_int(sb_policy_add_path(&p, "", SB_R, 0), -1, "empty path: refused");
	is_int(sb_policy_add_connect(&p, 80), 0, "connect");
	is_int(p.net, SB_NET_PORTS, "... makes the network port-restricted");

	sb_policy_init(&p);
	is_int(sb_seccomp_build(&p, &f), 0, "default filter assembles");
	p.net = SB_NET_NONE;
	is_int(sb_seccomp_build(&p, &f), 0, "no-network filter assembles");
	p.net = SB_NET_PORTS;
	p.unix_path[p.nunix++] = "/s";
	is_int(sb_seccomp_build(&p, &f), 0, "ports + unix filter assembles");
	ok(f.n < SF_MAX, "... within bounds (%zu)", f.n);
	p.own = SB_OWN_UNIX;
	is_int(sb_seccomp_build(&p, &f), 0, "own-unix beside a unix allowlist assembles");
	p.own = 0;
	p.userns = 1;
	is_int(sb_seccomp_build(&p, &f), 0, "with user namespaces allowed: assembles");
	p.userns = 0;
	p.ipfilter = 1;
	p.own = SB_OWN_PTY | SB_OWN_UNIX | SB_OWN_SHM;
	is_int(sb_seccomp_build(&p, &f), 0, "ports + unix + filter-ip + own-pty, -unix, -shm assembles");
	ok(f.n < SF_MAX, "... within bounds (%zu)", f.n);
	p.noexec = 1;
	is_int(sb_seccomp_build(&p, &f), 0, "... with exec refused (lib/selfnarrow) assembles");
	ok(f.n < SF_MAX, "... within bounds (%zu)", f.n);
	sb_policy_init(&p);
	p.net = SB_NET_NONE;
	p.noexec = 1;
	is_int(sb_seccomp_build(&p, &f), 0, "selfnarrow's filter (no network, no exec) assembles: one filter (%zu)", f.n);

	sf_init(&f);
	sf_jeq(&f, 1, 5, 0);
	sf_ret(&f, 0);
	is_int(sf_finish(&f), -1, "undefined label refused");
	sf_init(&f);
	sf_label(&f, 3);
	sf_ret(&f, 0);
	sf_jeq(&f, 1, 3, 0);
	sf_ret(&f, 0);
	is_int(sf_finish(&f), -1, "backward jump refused");
	sf_init(&f);
	sf_ld(&f, 0);
	is_int(sf_finish(&f), -1, "a program not ending in ret refused");
	return done_testing();
}
