/* compat: Linux constants newer than Debian 12's musl and kernel headers
 * know, in one place (the values are the kernel's ABI, fixed forever). */
#ifndef CORRAL_COMPAT_H
#define CORRAL_COMPAT_H
#include <sys/syscall.h>

/* CORRAL_ASAN: 1 in the sanitizer build (make san). ASan keeps
 * per-thread state that a CLONE_VM child would share and corrupt: where
 * a process shares its memory with a child or a bare thread, that build
 * forks or uses pthreads instead. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORRAL_ASAN 1
#endif
#endif
#if !defined(CORRAL_ASAN) && defined(__SANITIZE_ADDRESS__)
#define CORRAL_ASAN 1
#endif
#ifndef CORRAL_ASAN
#define CORRAL_ASAN 0
#endif

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
