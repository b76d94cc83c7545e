/* compat: Linux constants newer than Debian 12's musl and kernel headers
 * know, in one place (the values are the kernel's ABI, fixed forever). */
#ifndef CORRAL_COMPAT_H
#define CORRAL_COMPAT_H
#include <sys/syscall.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

#endif
