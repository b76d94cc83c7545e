/* escfilter: see escfilter.h. */
#include <string.h>

#include "escfilter.h"

enum { GROUND, ESC, CSI, OSC, OSC_ESC, DROP, DROP_ESC };

void
escf_init(struct escfilter *f)
{
	/* seq is read below n only: left as it is (4 KB, a page fault or
	 * two in keeper, which has no other use for it when nothing is
	 * relayed) */
	f->state = GROUND;
	f->n = 0;
	f->overlong = 0;
	memset(f->allow, 0, sizeof f->allow);
	f->nallow = 0;
}

static void
hold(struct escfilter *f, char c)
{
	if (f->n < sizeof f->seq)
		f->seq[f->n++] = c;
	else
		f->overlong = 1;
}

static size_t
emit(struct escfilter *f, char *out)
{
	size_t n = f->overlong ? 0 : f->n;

	memcpy(out, f->seq, n);
	f->n = 0;
	f->overlong = 0;
	f->state = GROUND;
	return n;
}

static void
drop(struct escfilter *f)
{
	f->n = 0;
	f->overlong = 0;
	f->state = GROUND;
}

/* The OSC held (ESC ] ... terminator): is its number allowed? */
static int
osc_ok(const struct escfilter *f)
{
	static const int ok[] = { 0, 1, 2, 7, 8, 133 };
	int num = 0, digits = 0;

	for (size_t i = 2; i < f->n && f->seq[i] >= '0' && f->seq[i] <= '9' && digits < 6; i++, digits++)
		num = num * 10 + (f->seq[i] - '0');
	if (digits == 0 || (2 + (size_t)digits < f->n && f->seq[2 + digits] != ';' &&
	    f->seq[2 + digits] != '\a' && f->seq[2 + digits] != '\033'))
		return 0;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (num == ok[i])
			return 1;
	for (int i = 0; i < f->nallow; i++)
		if (num == f->allow[i])
			return 1;
	return 0;
}

/* The CSI held: not a title report (CSI 20 t, CSI 21 t). */
static int
csi_ok(const struct escfilter *f)
{
	if (f->seq[f->n - 1] != 't')
		return 1;
	return !(f->n == 5 && f->seq[2] == '2' && (f->seq[3] == '0' || f->seq[3] == '1'));
}

size_t
escf_run(struct escfilter *f, const char *in, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		unsigned char u = (unsigned char)c;

		/* CAN and SUB cancel any sequence */
		if ((u == 0x18 || u == 0x1a) && f->state != GROUND) {
			drop(f);
			continue;
		}
		switch (f->state) {
		case GROUND:
			if (c == '\033') {
				hold(f, c);
				f->state = ESC;
			} else {
				out[o++] = c;
			}
			break;
		case ESC:
			if (c == '[') {
				hold(f, c);
				f->state = CSI;
			} else if (c == ']') {
				hold(f, c);
				f->state = OSC;
			} else if (c == 'P' || c == '_' || c == '^' || c == 'X') {
				f->n = 0;
				f->state = DROP;	/* DCS, APC, PM, SOS: to ST, never shown */
			} else if (c == '\033') {
				o += emit(f, out + o);	/* a lone ESC, then a new one */
				hold(f, c);
				f->state = ESC;
			} else {
				hold(f, c);
				o += emit(f, out + o);
			}
			break;
		case CSI:
			hold(f, c);
			if (u >= 0x40 && u <= 0x7e) {
				if (!f->overlong && csi_ok(f))
					o += emit(f, out + o);
				else
					drop(f);
			}
			break;
		case OSC:
			hold(f, c);
			if (c == '\a') {
				if (!f->overlong && osc_ok(f))
					o += emit(f, out + o);
				else
					drop(f);
			} else if (c == '\033') {
				f->state = OSC_ESC;
			}
			break;
		case OSC_ESC:
			hold(f, c);
			if (c == '\\' && !f->overlong && osc_ok(f))
				o += emit(f, out + o);
			else if (c == '\\')
				drop(f);
			else
				f->state = OSC;
			break;
		case DROP:
			if (c == '\033')
				f->state = DROP_ESC;
			break;
		case DROP_ESC:
			f->state = c == '\\' ? GROUND : c == '\033' ? DROP_ESC : DROP;
			break;
		}
	}
	return o;
}
