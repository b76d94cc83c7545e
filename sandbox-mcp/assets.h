/* assets: session_fetch's downloads folder, drun's layout, and the shallow
 * scan of a fetched HTML page for its assets. Pure: nothing here connects
 * or writes; what it finds is checked and fetched by fetch.c like any URL.
 *
 * Layout (drun v0.5.20): downloads/HOST/SLUG/NAME, where NAME is the URL
 * path's last segment (".pdf" added for application/pdf), index.html for
 * an HTML page with none, else "download"; SLUG is NAME's stem (without
 * its last extension), and with no segment the folder is downloads/HOST.
 * Assets land in the same folder under their last segment ("asset" when
 * none), -2, -3... before the extension when a name is taken; the folder
 * also holds manifest.json. */
#ifndef SBX_ASSETS_H
#define SBX_ASSETS_H
#include <stddef.h>

enum { ASSET_REF_MAX = 4096 };

/* The folder and the page's file name for host and path (the URL's path,
 * percent-encoded as given, "/..." or ""). Returns -1 when they do not
 * fit dirn / namen. */
int assets_layout(const char *host, const char *path, const char *ctype, int is_html,
    char *dir, size_t dirn, char *name, size_t namen);

/* An asset's file name from its URL path: the last segment or "asset",
 * made unique against used (a list of names separated by '\n', which the
 * new name is appended to). Returns -1 when it does not fit. */
int assets_name(const char *path, char *used, size_t usedn, char *name, size_t namen);

/* Call fn with each asset reference in html, in drun's order: link href
 * whose rel has "stylesheet" or a word ending in "icon", then script src,
 * then img src; entities decoded, blanks trimmed; fragments, data:,
 * mailto: and javascript: left out. Comments and the text of script and
 * style elements are not read as markup. fn returns nonzero to stop. */
void assets_scan(const char *html, size_t n, int (*fn)(void *u, const char *ref), void *u);

#endif
