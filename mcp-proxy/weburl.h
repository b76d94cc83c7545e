/* weburl: --web-urls, a browser's tools reach the web only. */
#ifndef MCP_PROXY_WEBURL_H
#define MCP_PROXY_WEBURL_H
#include <stddef.h>

/* 1 when s[0..n) is an http: or https: URL, or about:blank, as a browser
 * reads it (leading C0 controls and spaces skipped, tabs and newlines
 * anywhere removed, the scheme case-insensitive); 0 otherwise: file:,
 * filesystem:, view-source:, chrome:, blob:, data:, javascript:, no
 * scheme at all, or anything else. Pure. */
int web_url_ok(const char *s, size_t n);

#endif
