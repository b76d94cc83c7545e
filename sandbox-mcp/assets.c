#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "assets.h"

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int
blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* "." or "..": a name that is no file of a folder of its own */
static int
dot_name(const char *s, size_t n)
{
	return (n == 1 || n == 2) && s[0] == '.' && s[n - 1] == '.';
}

/* A control byte: no workspace path holds one ('\n' also separates the
 * names taken) */
static int
has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

/* The last path segment (after the last '/'), or NULL when empty, a dot
 * segment or holding a control byte. */
static const char *
last_segment(const char *path, size_t *len)
{
	const char *s = strrchr(path, '/');

	s = s ? s + 1 : path;
	*len = strlen(s);
	/* "." and ".." name no file (a path's dot segments), nor does a
	 * segment with a control byte: none */
	return *len && !dot_name(s, *len) && !has_control(s, *len) ? s : NULL;
}

int
assets_layout(const char *host, const char *path, const char *ctype, int is_html,
    char *dir, size_t dirn, char *name, size_t namen)
{
	size_t sl, stem, ml = 0;
	const char *seg = last_segment(path, &sl), *dot;
	int n;

	if (seg == NULL) {
		n = snprintf(dir, dirn, "downloads/%s", host);
		if (n < 0 || (size_t)n >= dirn)
			return -1;
		n = snprintf(name, namen, "%s", is_html ? "index.html" : "download");
		return n < 0 || (size_t)n >= namen ? -1 : 0;
	}
	/* the slug: the stem before the last '.', unless that is empty or a
	 * dot segment ("..x": the folder is "..x", never "." ) */
	dot = memrchr(seg, '.', sl);
	stem = dot && dot > seg && !dot_name(seg, (size_t)(dot - seg)) ? (size_t)(dot - seg) : sl;
	n = snprintf(dir, dirn, "downloads/%s/%.*s", host, (int)stem, seg);
	if (n < 0 || (size_t)n >= dirn)
		return -1;
	/* drun names a PDF's file .pdf when its segment does not end so */
	while (ctype[ml] && ctype[ml] != ';')
		ml++;
	while (ml && blank(ctype[ml - 1]))
		ml--;
	{
		const char *c = ctype;
		while (blank(*c) && ml)
			c++, ml--;
		int pdf = ml == 15 && strncasecmp(c, "application/pdf", 15) == 0;
		int has = dot && dot > seg && strcasecmp(dot, ".pdf") == 0;
		n = snprintf(name, namen, "%.*s%s", (int)sl, seg, pdf && !has ? ".pdf" : "");
	}
	return n < 0 || (size_t)n >= namen ? -1 : 0;
}

static int
used_has(const char *used, const char *name)
{
	size_t l = strlen(name);

	for (const char *p = used; *p;) {
		const char *e = strchr(p, '\n');
		size_t k = e ? (size_t)(e - p) : strlen(p);
		if (k == l && memcmp(p, name, l) == 0)
			return 1;
		p += k + (e != NULL);
	}
	return 0;
}

int
assets_name(const char *path, char *used, size_t usedn, char *name, size_t namen)
{
	size_t sl, ul = strlen(used);
	const char *seg = last_segment(path, &sl), *dot;
	int n;

	if (seg == NULL)
		seg = "asset", sl = 5;
	n = snprintf(name, namen, "%.*s", (int)sl, seg);
	if (n < 0 || (size_t)n >= namen)
		return -1;
	dot = memrchr(seg, '.', sl);
	for (int i = 2; used_has(used, name); i++) {
		/* drun: stem-N.ext, split at the last '.' (even a leading one) */
		if (dot)
			n = snprintf(name, namen, "%.*s-%d%.*s", (int)(dot - seg), seg, i, (int)(sl - (size_t)(dot - seg)), dot);
		else
			n = snprintf(name, namen, "%.*s-%d", (int)sl, seg, i);
		if (n < 0 || (size_t)n >= namen)
			return -1;
	}
	if (ul + strlen(name) + 2 > usedn)
		return -1;
	snprintf(used + ul, usedn - ul, "%s%s", ul ? "\n" : "", name);
	return 0;
}

/* Decode the character references drun's parser would (the common named
 * ones and numeric ASCII) of v[0..n) into out; blanks trimmed. */
static void
attr_value(const char *v, size_t n, char *out, size_t outn)
{
	static const struct { const char *name; char c; } ent[] = {
		{ "amp;", '&' }, { "quot;", '"' }, { "apos;", '\'' }, { "lt;", '<' }, { "gt;", '>' },
	};
	size_t o = 0;

	while (n && blank(*v))
		v++, n--;
	while (n && blank(v[n - 1]))
		n--;
	for (size_t i = 0; i < n && o + 1 < outn;) {
		int done = 0;
		if (v[i] == '&') {
			for (size_t k = 0; k < sizeof ent / sizeof ent[0] && !done; k++) {
				size_t l = strlen(ent[k].name);
				if (i + 1 + l <= n && strncasecmp(v + i + 1, ent[k].name, l) == 0) {
					out[o++] = ent[k].c;
					i += 1 + l;
					done = 1;
				}
			}
			if (!done && i + 2 < n && v[i + 1] == '#') {
				size_t j = i + 2;
				unsigned c = 0;
				int hex = j < n && (v[j] == 'x' || v[j] == 'X'), digits = 0;
				for (j += hex; j < n && digits < 6; j++, digits++) {
					int d = v[j] >= '0' && v[j] <= '9' ? v[j] - '0' :
					    hex && lower(v[j]) >= 'a' && lower(v[j]) <= 'f' ? lower(v[j]) - 'a' + 10 : -1;
					if (d < 0)
						break;
					c = c * (hex ? 16 : 10) + (unsigned)d;
				}
				if (digits && c > 0 && c < 128) {
					out[o++] = (char)c;
					i = j < n && v[j] == ';' ? j + 1 : j;
					done = 1;
				}
			}
		}
		if (!done)
			out[o++] = v[i++];
	}
	out[o] = '\0';
}

static int
word_ends_icon(const char *rel)
{
	for (const char *p = rel; *p;) {
		size_t l;
		while (blank(*p))
			p++;
		for (l = 0; p[l] && !blank(p[l]); l++)
			;
		if ((l == 10 && strncasecmp(p, "stylesheet", 10) == 0) || (l >= 4 && strncasecmp(p + l - 4, "icon", 4) == 0))
			return 1;
		p += l;
	}
	return 0;
}

static int
skippable(const char *ref)
{
	static const char *const pre[] = { "data:", "mailto:", "javascript:" };

	if (ref[0] == '\0' || ref[0] == '#')
		return 1;
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (strncasecmp(ref, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

/* Find needle (lowercase) case-insensitively in h[from..n); n if none. */
static size_t
find_ci(const char *h, size_t n, size_t from, const char *needle)
{
	size_t l = strlen(needle);

	for (size_t i = from; i + l <= n; i++) {
		size_t k = 0;
		while (k < l && lower((unsigned char)h[i + k]) == needle[k])
			k++;
		if (k == l)
			return i;
	}
	return n;
}

/* One pass for kind: 0 link, 1 script, 2 img. */
static int
pass(const char *h, size_t n, int kind, int (*fn)(void *u, const char *ref), void *u)
{
	static const char *const tag[] = { "link", "script", "img" };
	char rel[512], ref[ASSET_REF_MAX];

	for (size_t i = 0; i < n;) {
		char name[16];
		size_t nl = 0, j;
		int has_ref = 0, has_rel = 0;

		if (h[i] != '<') {
			i++;
			continue;
		}
		if (i + 4 <= n && memcmp(h + i, "<!--", 4) == 0) {
			size_t e = find_ci(h, n, i + 4, "-->");
			i = e == n ? n : e + 3;
			continue;
		}
		j = i + 1;
		while (j < n && nl + 1 < sizeof name && ((lower((unsigned char)h[j]) >= 'a' && lower((unsigned char)h[j]) <= 'z') ||
		    (h[j] >= '0' && h[j] <= '9')))
			name[nl++] = (char)lower((unsigned char)h[j++]);
		name[nl] = '\0';
		if (nl == 0) {	/* </x>, <!x>, <?x>, a stray '<' */
			i++;
			continue;
		}
		rel[0] = ref[0] = '\0';
		/* the attributes, to the tag's '>' (quotes respected) */
		while (j < n && h[j] != '>') {
			size_t a0, al, v0 = 0, vl = 0;
			while (j < n && (blank(h[j]) || h[j] == '/'))
				j++;
			if (j >= n || h[j] == '>')
				break;
			for (a0 = j; j < n && !blank(h[j]) && h[j] != '=' && h[j] != '>' && (h[j] != '/' || j == a0); j++)
				;
			al = j - a0;
			while (j < n && blank(h[j]))
				j++;
			if (j < n && h[j] == '=') {
				j++;
				while (j < n && blank(h[j]))
					j++;
				if (j < n && (h[j] == '"' || h[j] == '\'')) {
					char q = h[j++];
					v0 = j;
					while (j < n && h[j] != q)
						j++;
					vl = j - v0;
					if (j < n)
						j++;
				} else {
					for (v0 = j; j < n && !blank(h[j]) && h[j] != '>'; j++)
						;
					vl = j - v0;
				}
			}
			/* the first of an attribute counts, as in an HTML parser */
			if (al == 3 && strncasecmp(h + a0, "rel", 3) == 0 && !has_rel) {
				attr_value(h + v0, vl, rel, sizeof rel);
				has_rel = 1;
			} else if (((kind == 0 && al == 4 && strncasecmp(h + a0, "href", 4) == 0) ||
			    (kind != 0 && al == 3 && strncasecmp(h + a0, "src", 3) == 0)) && !has_ref) {
				if (vl < sizeof ref) {
					attr_value(h + v0, vl, ref, sizeof ref);
					has_ref = 1;
				} else {
					has_ref = -1;	/* too long to be kept: left out */
				}
			}
		}
		if (j >= n)	/* the page ends inside the tag: no tag (as a parser drops it) */
			break;
		i = j + 1;
		if (strcmp(name, tag[kind]) == 0 && has_ref == 1 && (kind != 0 || word_ends_icon(rel)) &&
		    !skippable(ref) && fn(u, ref))
			return 1;
		/* raw text: no markup inside script, style, textarea, title */
		if (strcmp(name, "script") == 0 || strcmp(name, "style") == 0 || strcmp(name, "textarea") == 0 ||
		    strcmp(name, "title") == 0) {
			char end[24];
			snprintf(end, sizeof end, "</%s", name);
			i = find_ci(h, n, i, end);
		}
	}
	return 0;
}

void
assets_scan(const char *html, size_t n, int (*fn)(void *u, const char *ref), void *u)
{
	for (int k = 0; k < 3; k++)
		if (pass(html, n, k, fn, u))
			return;
}
