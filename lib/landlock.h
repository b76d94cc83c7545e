/*
 * landlock.h: our own Landlock UAPI definitions, ABI 1 to 7.
 *
 * Debian 12's <linux/landlock.h> only knows ABI 1-2, so nothing here includes
 * it: the constants carry the kernel's names (guarded, in case a newer header
 * is pulled in elsewhere) and the structs our own names, laid out as the
 * kernel's. Values from the kernel's include/uapi/linux/landlock.h.
 */
#ifndef CORRAL_LANDLOCK_H
#define CORRAL_LANDLOCK_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {		/* ABI 4 */
	uint64_t allowed_access;
	uint64_t port;
};

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_CREATE_RULESET_ERRATA
#define LANDLOCK_CREATE_RULESET_ERRATA (1U << 1)
#endif

#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2		/* ABI 4 */

#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE	(1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE	(1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE	(1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR	(1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR	(1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE	(1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR	(1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR	(1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG	(1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK	(1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO	(1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK	(1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM	(1ULL << 12)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER	(1ULL << 13)	/* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */
#endif

#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP	(1ULL << 0)	/* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP	(1ULL << 1)	/* ABI 4 */
#endif

#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)	/* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL		(1ULL << 1)	/* ABI 6 */
#endif

#ifndef LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF
#define LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)	/* ABI 7 */
#define LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON	(1U << 1)	/* ABI 7 */
#define LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)	/* ABI 7 */
#endif

static inline int
ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
	return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}

static inline int
ll_add_rule(int ruleset_fd, int type, const void *attr, uint32_t flags)
{
	return (int)syscall(__NR_landlock_add_rule, ruleset_fd, type, attr, flags);
}

static inline int
ll_restrict_self(int ruleset_fd, uint32_t flags)
{
	return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}

/* The running kernel's ABI version, or -1 with errno (ENOSYS, EOPNOTSUPP). */
static inline int
ll_abi(void)
{
	return ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
}

#endif
