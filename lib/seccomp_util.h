/* seccomp_util: a tiny classic-BPF assembler with forward labels, the native
 * audit arch (fd passing is lib/fdpass.h). */
#ifndef CORRAL_SECCOMP_UTIL_H
#define CORRAL_SECCOMP_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <linux/audit.h>
#include <linux/filter.h>

#if defined(__x86_64__)
#define SF_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SF_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp filter: unsupported architecture"
#endif

#define SF_MAX 256
#define SF_LABELS 64

struct sf_prog {
	struct sock_filter ins[SF_MAX];
	size_t n;
	int label_at[SF_LABELS];		/* instruction index, -1 unset */
	uint8_t jt_label[SF_MAX], jf_label[SF_MAX];	/* 0: none */
	int err;
};

void sf_init(struct sf_prog *f);
void sf_ld(struct sf_prog *f, uint32_t off);		/* A = 32-bit word at off */
void sf_and(struct sf_prog *f, uint32_t k);
/* Conditional jumps to labels; label 0 means "fall through". */
void sf_jeq(struct sf_prog *f, uint32_t k, int lt, int lf);
void sf_jge(struct sf_prog *f, uint32_t k, int lt, int lf);
void sf_jset(struct sf_prog *f, uint32_t k, int lt, int lf);	/* A & k */
void sf_ret(struct sf_prog *f, uint32_t k);
void sf_label(struct sf_prog *f, int label);
/* Resolve labels: 0, or -1 (too long, undefined or backward label). */
int sf_finish(struct sf_prog *f);

/* The filter of a policy (sandbox_seccomp.c), exposed for unit tests. */
struct sb_policy;
int sb_seccomp_build(const struct sb_policy *p, struct sf_prog *f);

/* Install f (SECCOMP_SET_MODE_FILTER with flags): the listener fd with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, else 0; -1 with errno. */
int sf_install(struct sf_prog *f, unsigned flags);


#endif
