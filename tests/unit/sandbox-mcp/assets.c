/* session_fetch's downloads folder (drun's layout) and the shallow scan of
 * an HTML page for its assets: pure. */
#include <string.h>

#include "../../../sandbox-mcp/assets.h"
#include "tap.h"

static char got[4096];

static int
collect(void *u, const char *ref)
{
	(void)u;
	strcat(got, ref);
	strcat(got, "|");
	return 0;
}

static const char *
scan(const char *html)
{
	got[0] = '\0';
	assets_scan(html, strlen(html), collect, NULL);
	return got;
}

static int
stop_first(void *u, const char *ref)
{
	(*(int *)u)++;
	return 1;
}

int
main(void)
{
	char dir[256], name[256], used[256];
	int n = 0;

	is_int(assets_layout("a.test", "/x/page.html", "text/html", 1, dir, sizeof dir, name, sizeof name), 0, "layout");
	is_str(dir, "downloads/a.test/page", "the folder: the segment's stem");
	is_str(name, "page.html", "the file: the segment");
	assets_layout("a.test", "/", "text/html; charset=utf-8", 1, dir, sizeof dir, name, sizeof name);
	is_str(dir, "downloads/a.test", "no segment: downloads/HOST");
	is_str(name, "index.html", "... an HTML page: index.html");
	assets_layout("a.test", "/dir/", "application/json", 0, dir, sizeof dir, name, sizeof name);
	is_str(name, "download", "... anything else: download (the last segment is the empty one, as drun's)");
	assets_layout("a.test", "/doc", " Application/PDF ; q=1", 0, dir, sizeof dir, name, sizeof name);
	is_str(name, "doc.pdf", "a PDF gets .pdf");
	is_str(dir, "downloads/a.test/doc", "... its folder the segment");
	assets_layout("a.test", "/doc.PDF", "application/pdf", 0, dir, sizeof dir, name, sizeof name);
	is_str(name, "doc.PDF", "... unless it ends so already");
	assets_layout("a.test", "/.htaccess", "text/plain", 0, dir, sizeof dir, name, sizeof name);
	is_str(dir, "downloads/a.test/.htaccess", "a leading dot is no extension");
	is_int(assets_layout("a.test", "/p.html", "text/html", 1, dir, 10, name, sizeof name), -1, "too long: -1");
	assets_layout("a.test", "/a/..", "text/html", 1, dir, sizeof dir, name, sizeof name);
	is_str(dir, "downloads/a.test", "a last segment '..' is none: downloads/HOST ...");
	is_str(name, "index.html", "... and its default name, never '..'");
	assets_layout("a.test", "/.", "text/plain", 0, dir, sizeof dir, name, sizeof name);
	is_str(name, "download", "'.' likewise");
	assets_layout("a.test", "/..x", "text/plain", 0, dir, sizeof dir, name, sizeof name);
	is_str(dir, "downloads/a.test/..x", "'..x': the folder the whole segment, never '.'");
	assets_layout("a.test", "/...x", "text/plain", 0, dir, sizeof dir, name, sizeof name);
	is_str(dir, "downloads/a.test/...x", "'...x': the stem '..' is no folder either");

	strcpy(used, "page.html\nmanifest.json");
	assets_name("/css/s.css", used, sizeof used, name, sizeof name);
	is_str(name, "s.css", "an asset: its last segment");
	assets_name("/other/s.css", used, sizeof used, name, sizeof name);
	is_str(name, "s-2.css", "a name taken: -2 before the extension");
	assets_name("/third/s.css", used, sizeof used, name, sizeof name);
	is_str(name, "s-3.css", "... then -3");
	assets_name("/m/manifest.json", used, sizeof used, name, sizeof name);
	is_str(name, "manifest-2.json", "manifest.json is taken");
	assets_name("/", used, sizeof used, name, sizeof name);
	is_str(name, "asset", "no segment: asset");
	assets_name("/x/", used, sizeof used, name, sizeof name);
	is_str(name, "asset-2", "... taken: asset-2");
	assets_name("/x/..", used, sizeof used, name, sizeof name);
	is_str(name, "asset-3", "'..' is no name: asset (taken: asset-3)");
	assets_name(".", used, sizeof used, name, sizeof name);
	is_str(name, "asset-4", "nor '.'");
	assets_name("/a\nasset-4", used, sizeof used, name, sizeof name);
	is_str(name, "asset-5", "nor a segment with a control byte (a newline would split the names taken)");
	assets_layout("a.test", "/p\tq.html", "text/html", 1, dir, sizeof dir, name, sizeof name);
	is_str(name, "index.html", "... nor a page's");

	is_str(scan("<img src=a.png><script src='/b.js'></script><link rel=stylesheet href=\"c.css\">"),
	    "c.css|/b.js|a.png|", "links, then scripts, then images (drun's order)");
	is_str(scan("<LINK REL=\"Shortcut Icon\" HREF=\"/f.ico\"><link rel=apple-touch-icon href=t.png>"
	    "<link rel=next href=n.html><link rel=preload href=p.js><link href=nrel.css>"),
	    "/f.ico|t.png|", "a link counts when rel has stylesheet or a word ending in icon (any case)");
	is_str(scan("<!-- <img src=c.png> --><script>var s = '<img src=s.png>';</script>"
	    "<style>.a{background:url(<img src=st.png>)}</style><img src=real.png>"),
	    "real.png|", "nothing in comments, script or style text");
	is_str(scan("<img src=\"#top\"><img src=\"data:image/png;base64,AA\"><img src=\"JavaScript:x()\">"
	    "<img src=\"mailto:a@b\"><img src=\"  \"><img>"),
	    "", "fragments, data:, javascript:, mailto:, blanks and no src: left out");
	is_str(scan("<img src=\" a&amp;b.png?x=1&#38;y=2 \"><img alt='>' src=q.png><img src=one.png src=two.png>"),
	    "a&b.png?x=1&y=2|q.png|one.png|", "entities decoded, blanks trimmed, '>' in quotes, the first src");
	is_str(scan("<img/src=s.png><imgx src=no.png><img src=unterminated"), "s.png|", "odd spellings; a tag the page ends in is none");
	is_str(scan("<img src="), "", "a page that ends inside a tag");
	assets_scan("<img src=a><img src=b>", 22, stop_first, &n);
	is_int(n, 1, "the callback stops the scan");
	return done_testing();
}
