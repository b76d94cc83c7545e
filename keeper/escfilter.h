/* escfilter: what the agent prints to its terminal, on its way to the
 * user's, with the escape sequences taken out that write the user's
 * clipboard or make the terminal answer with text the agent chose (which
 * would land in the user's shell once the agent is gone): OSC but the
 * title, cwd, hyperlink and prompt marks (OSC 0, 1, 2, 7, 8, 133; 52 is the
 * clipboard), every DCS (DECRQSS, tmux passthrough, sixel), APC, PM and
 * SOS, and the title reports (CSI 20 t, CSI 21 t). Colours, cursor
 * movement and every other CSI pass. A state machine: a sequence split
 * across reads is filtered all the same. 7-bit sequences (a UTF-8
 * terminal takes 0x80-0x9f as text). Pure: no I/O. */
#ifndef CORRAL_ESCFILTER_H
#define CORRAL_ESCFILTER_H
#include <stddef.h>

enum { ESCF_MAX_ALLOW = 16, ESCF_MAX_SEQ = 4096 };

struct escfilter {
	int state;
	size_t n;			/* bytes of the sequence held in seq */
	int overlong;			/* the sequence outgrew seq: dropped whole */
	char seq[ESCF_MAX_SEQ];
	int allow[ESCF_MAX_ALLOW];	/* further OSC numbers the user allows */
	int nallow;
};

void escf_init(struct escfilter *f);
/* Filter in[0..n) into out (room for n + ESCF_MAX_SEQ bytes); returns the
 * bytes written. A sequence not yet complete is held for the next call. */
size_t escf_run(struct escfilter *f, const char *in, size_t n, char *out);

#endif
