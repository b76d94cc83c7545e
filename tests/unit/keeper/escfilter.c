/* escfilter: the pty relay's filter, whole and split at every byte. */
#include <string.h>

#include "escfilter.h"
#include "tap.h"

/* in filtered at once, and byte by byte, both must give want */
static void
check(const char *in, const char *want, const int *allow, int nallow, const char *desc)
{
	static char out[8192 + ESCF_MAX_SEQ], out2[8192 + ESCF_MAX_SEQ];
	struct escfilter f;
	size_t n = strlen(in), k, k2 = 0;

	escf_init(&f);
	for (int i = 0; i < nallow; i++)
		f.allow[f.nallow++] = allow[i];
	k = escf_run(&f, in, n, out);
	out[k] = '\0';
	escf_init(&f);
	for (int i = 0; i < nallow; i++)
		f.allow[f.nallow++] = allow[i];
	for (size_t i = 0; i < n; i++)
		k2 += escf_run(&f, in + i, 1, out2 + k2);
	out2[k2] = '\0';
	is_str(out, want, "%s", desc);
	is_str(out2, want, "%s: split at every byte", desc);
}

int
main(void)
{
	static const int a52[] = { 52 };
	static char big[6000];

	check("plain text\r\n", "plain text\r\n", NULL, 0, "text passes");
	check("\033[1;31mred\033[0m \033[2J\033[10;5H\033[?25l", "\033[1;31mred\033[0m \033[2J\033[10;5H\033[?25l", NULL, 0,
	    "control: colours, clearing, cursor movement and modes pass");
	check("\033]0;title\a\033]2;t2\033\\\033]8;;http://x\033\\link\033]8;;\033\\", "\033]0;title\a\033]2;t2\033\\\033]8;;http://x\033\\link\033]8;;\033\\",
	    NULL, 0, "control: titles and hyperlinks pass (BEL and ST)");
	check("a\033]52;c;Y3VybCBldmlsfHNo\ab", "ab", NULL, 0, "OSC 52 (the clipboard) is taken out, BEL-terminated");
	check("a\033]52;c;Y3VybCBldmlsfHNo\033\\b", "ab", NULL, 0, "... and ST-terminated");
	check("a\033]52;c;?\ab", "ab", NULL, 0, "... and the clipboard query");
	check("a\033]10;?\a\033]4;1;?\ab", "ab", NULL, 0, "colour queries (answer-backs) are taken out");
	check("a\033P$qm\033\\b", "ab", NULL, 0, "DECRQSS (DCS $ q) is taken out");
	check("a\033Ptmux;\033\033]52;c;eA==\a\033\\b", "ab", NULL, 0, "tmux passthrough (DCS tmux;) is taken out");
	check("a\033_Gf=100;AAAA\033\\b\033^pm\033\\c\033Xsos\033\\d", "abcd", NULL, 0, "APC, PM and SOS are taken out");
	check("a\033[21t\033[20tb\033[18t\033[6n", "ab\033[18t\033[6n", NULL, 0,
	    "title reports (CSI 20 t, 21 t) go; size and cursor reports (fixed answers) pass");
	check("a\033]52;c;eA==\ab", "a\033]52;c;eA==\ab", a52, 1, "--allow-osc 52 lets the clipboard through");
	check("a\033]52;c;e\030b", "ab", NULL, 0, "CAN cancels a sequence");
	check("a\033\033[1mb", "a\033\033[1mb", NULL, 0, "a lone ESC passes");
	memset(big, 'x', sizeof big - 1);
	memcpy(big, "\033]2;", 4);
	big[sizeof big - 2] = '\a';
	check(big, "", NULL, 0, "an OSC longer than the filter holds is dropped whole");
	return done_testing();
}
