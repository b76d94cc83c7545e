/* seccomp_util: see seccomp_util.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "seccomp_util.h"

void
sf_init(struct sf_prog *f)
{
	memset(f, 0, sizeof *f);
	memset(f->label_at, 0xff, sizeof f->label_at);
}

static void
emit(struct sf_prog *f, uint16_t code, uint32_t k, int lt, int lf)
{
	if (f->n >= SF_MAX || lt < 0 || lt >= SF_LABELS || lf < 0 || lf >= SF_LABELS) {
		f->err = 1;
		return;
	}
	f->ins[f->n].code = code;
	f->ins[f->n].k = k;
	f->jt_label[f->n] = (uint8_t)lt;
	f->jf_label[f->n] = (uint8_t)lf;
	f->n++;
}

void sf_ld(struct sf_prog *f, uint32_t off) { emit(f, BPF_LD | BPF_W | BPF_ABS, off, 0, 0); }
void sf_and(struct sf_prog *f, uint32_t k) { emit(f, BPF_ALU | BPF_AND | BPF_K, k, 0, 0); }
void sf_jeq(struct sf_prog *f, uint32_t k, int lt, int lf) { emit(f, BPF_JMP | BPF_JEQ | BPF_K, k, lt, lf); }
void sf_jge(struct sf_prog *f, uint32_t k, int lt, int lf) { emit(f, BPF_JMP | BPF_JGE | BPF_K, k, lt, lf); }
void sf_jset(struct sf_prog *f, uint32_t k, int lt, int lf) { emit(f, BPF_JMP | BPF_JSET | BPF_K, k, lt, lf); }
void sf_ret(struct sf_prog *f, uint32_t k) { emit(f, BPF_RET | BPF_K, k, 0, 0); }

void
sf_label(struct sf_prog *f, int label)
{
	if (label <= 0 || label >= SF_LABELS || f->label_at[label] != -1) {
		f->err = 1;
		return;
	}
	f->label_at[label] = (int)f->n;
}

static int
target(struct sf_prog *f, size_t i, int label, uint8_t *out)
{
	int d;

	if (label == 0) {
		*out = 0;
		return 0;
	}
	if (f->label_at[label] < 0)
		return -1;
	d = f->label_at[label] - (int)i - 1;
	if (d < 0 || d > 255)
		return -1;
	*out = (uint8_t)d;
	return 0;
}

int
sf_finish(struct sf_prog *f)
{
	size_t i;

	if (f->err || f->n == 0)
		return -1;
	for (i = 0; i < f->n; i++)
		if (BPF_CLASS(f->ins[i].code) == BPF_JMP &&
		    (target(f, i, f->jt_label[i], &f->ins[i].jt) != 0 ||
		     target(f, i, f->jf_label[i], &f->ins[i].jf) != 0))
			return -1;
	/* The last instruction must return. */
	if (BPF_CLASS(f->ins[f->n - 1].code) != BPF_RET)
		return -1;
	return 0;
}

int
sf_install(struct sf_prog *f, unsigned flags)
{
	struct sock_fprog fp;

	fp.len = (unsigned short)f->n;
	fp.filter = f->ins;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fp);
}
