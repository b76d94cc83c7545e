/* weburl: an allowlist of schemes, not a list of bad ones: a browser knows
 * more local-state schemes (file:, filesystem:, view-source:file:, chrome:,
 * chrome-extension:, devtools:, blob: of a file: origin ...) than a list
 * would keep up with. data: and javascript: are out too: each runs a page
 * whose origin no network policy judges. */
#include <string.h>

#include "weburl.h"

int
web_url_ok(const char *s, size_t n)
{
	char v[16];
	size_t i = 0, k = 0;

	/* the WHATWG URL parser: leading C0 controls and spaces go, tab and
	 * newline are removed wherever they are */
	while (i < n && (unsigned char)s[i] <= 0x20)
		i++;
	for (; i < n && k < sizeof v - 1; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		v[k++] = (char)c;
		if (c == ':')
			break;
	}
	v[k] = '\0';
	if (strcmp(v, "http:") == 0 || strcmp(v, "https:") == 0)
		return 1;
	if (strcmp(v, "about:") != 0)
		return 0;
	/* about:blank only (about:srcdoc and the like are a page's own) */
	for (k = 0, i++; i < n; i++) {
		if (s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
			continue;
		if (k >= 5 || (s[i] | 0x20) != "blank"[k])
			return 0;
		k++;
	}
	return k == 5;
}
