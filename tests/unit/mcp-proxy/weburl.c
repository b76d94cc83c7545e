/* mcp-proxy --web-urls: only http:, https: and about:blank reach a browser. */
#include <string.h>

#include "tap.h"
#include "../../../mcp-proxy/weburl.h"

static int
w(const char *s)
{
	return web_url_ok(s, strlen(s));
}

int
main(void)
{
	static const char *const good[] = {
		"http://127.0.0.1:8080/", "https://example.org/x?y#z", "HTTP://a/", "HtTpS://a",
		" \x01http://a/", "ht\ttp://a/", "h\nttps://a/", "about:blank", "ABOUT:BLANK", "about:bl\tank",
	};
	static const char *const bad[] = {
		"file:///etc/hostname", "FILE:///etc/hostname", " file:///etc/passwd", "fi\tle:///etc/passwd",
		"\x01\x1f file:/etc", "file:etc/hostname", "filesystem:http://a/temporary/x",
		"view-source:file:///etc/hostname", "view-source:http://a/", "chrome://settings",
		"chrome-extension://abc/x", "chrome-untrusted://x", "devtools://devtools/x", "blob:file:///x",
		"data:text/html,<script>location='file:///etc/hostname'</script>",
		"javascript:location='file:///etc/passwd'", "about:srcdoc", "about:blankx", "about:",
		"etc/hostname", "/etc/hostname", "localhost:3000", "", "   ", "http", "https//a",
		"\\\\server\\share", "ws://a/", "ftp://a/",
	};
	size_t i;

	for (i = 0; i < sizeof good / sizeof *good; i++)
		ok(w(good[i]) == 1, "allowed: %s", good[i]);
	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		ok(w(bad[i]) == 0, "refused: %s", bad[i]);
	/* the length bounds the check, not a NUL */
	ok(web_url_ok("file:///x", 4) == 0, "a prefix is judged as given");
	ok(web_url_ok("http://a\0file:", 8) == 1, "bytes past n are not read as the URL");
	return done_testing();
}
