/* toml: the TOML drun's config.toml is written in, as a JSON object. Pure.
 * The subset: comments, blank lines, and top-level key = value lines whose
 * value is a string (basic "..." with escapes, or literal '...'), a decimal
 * integer, true or false, or an array of those (lines may break inside
 * it). Everything else TOML has (tables, dotted or quoted keys, floats,
 * dates, multi-line strings, inline tables, nested arrays) is refused with
 * its line and column, never guessed at. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "toml.h"

struct tp {
	const char *s, *e, *line0;	/* input, its end, where the line starts */
	int line;
	struct json_err *err;
	struct buf *o;
};

static int
fail(struct tp *p, const char *msg)
{
	p->err->line = p->line;
	p->err->col = (int)(p->s - p->line0) + 1;
	snprintf(p->err->msg, sizeof p->err->msg, "%s", msg);
	return -1;
}

/* blanks; with nl, newlines and comments too */
static void
skip(struct tp *p, int nl)
{
	while (p->s < p->e) {
		if (*p->s == ' ' || *p->s == '\t') {
			p->s++;
		} else if (nl && *p->s == '#') {
			while (p->s < p->e && *p->s != '\n')
				p->s++;
		} else if (nl && (*p->s == '\n' || (*p->s == '\r' && p->s + 1 < p->e && p->s[1] == '\n'))) {
			p->s += *p->s == '\r' ? 2 : 1;
			p->line++;
			p->line0 = p->s;
		} else {
			break;
		}
	}
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int
string(struct tp *p)
{
	char q = *p->s, v[TOML_STR_MAX];
	size_t n = 0;

	if (p->s + 2 < p->e && p->s[1] == q && p->s[2] == q)
		return fail(p, "multi-line strings are not understood");
	p->s++;
	while (p->s < p->e && *p->s != q) {
		unsigned char c = (unsigned char)*p->s;
		if (c == '\n' || (c < 0x20 && c != '\t') || c == 0x7f)
			return fail(p, "a control character or a line end inside a string");
		if (n + 4 >= sizeof v)
			return fail(p, "a string longer than 4096 bytes");
		if (c == '\\' && q == '"') {
			unsigned cp = 0;
			char x = p->s + 1 < p->e ? p->s[1] : 0;
			const char *m = strchr("btnfr\"\\", x);
			if (x && m) {
				v[n++] = "\b\t\n\f\r\"\\"[m - "btnfr\"\\"];
				p->s += 2;
				continue;
			}
			if (x != 'u')
				return fail(p, "an escape other than \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX");
			for (int i = 2; i < 6; i++) {
				int h = p->s + i < p->e ? hexval(p->s[i]) : -1;
				if (h < 0)
					return fail(p, "\\u needs four hex digits");
				cp = cp << 4 | (unsigned)h;
			}
			if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
				return fail(p, "\\u names NUL or a surrogate");
			if (cp < 0x80) {
				v[n++] = (char)cp;
			} else if (cp < 0x800) {
				v[n++] = (char)(0xc0 | cp >> 6);
				v[n++] = (char)(0x80 | (cp & 63));
			} else {
				v[n++] = (char)(0xe0 | cp >> 12);
				v[n++] = (char)(0x80 | ((cp >> 6) & 63));
				v[n++] = (char)(0x80 | (cp & 63));
			}
			p->s += 6;
			continue;
		}
		v[n++] = (char)c;
		p->s++;
	}
	if (p->s >= p->e)
		return fail(p, "a string without its closing quote");
	p->s++;
	if (!utf8_valid(v, n))
		return fail(p, "a string that is not UTF-8");
	return json_quote_buf(p->o, v, n) < 0 ? fail(p, "out of memory") : 0;
}

static int
scalar(struct tp *p)
{
	const char *b = p->s;

	if (p->s < p->e && (*p->s == '"' || *p->s == '\''))
		return string(p);
	while (p->s < p->e && (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-.:", *p->s)))
		p->s++;
	if ((p->s - b == 4 && memcmp(b, "true", 4) == 0) || (p->s - b == 5 && memcmp(b, "false", 5) == 0)) {
		buf_add(p->o, b, (size_t)(p->s - b));
		return 0;
	}
	/* a decimal integer: [+-], no leading zero, _ only between digits */
	{
		const char *d = b + (b < p->s && (*b == '+' || *b == '-'));
		int nd = 0;
		if (d == p->s || (*d == '0' && p->s - d > 1))
			goto bad;
		for (const char *c = d; c < p->s; c++) {
			if (*c >= '0' && *c <= '9')
				nd++;
			else if (!(*c == '_' && c > d && c + 1 < p->s && c[-1] != '_' && c[1] >= '0' && c[1] <= '9'))
				goto bad;
		}
		if (nd > 18)
			goto bad;
		if (*b == '-')
			buf_adds(p->o, "-");
		for (const char *c = d; c < p->s; c++)
			if (*c != '_')
				buf_add(p->o, c, 1);
		return 0;
	}
bad:
	p->s = b;
	return fail(p, "a value that is not a string, a decimal integer, true, false or an array of them");
}

static int
value(struct tp *p)
{
	int n = 0;

	if (p->s >= p->e || *p->s != '[')
		return scalar(p);
	p->s++;
	buf_adds(p->o, "[");
	for (;;) {
		skip(p, 1);
		if (p->s < p->e && *p->s == ']')
			break;
		if (p->s < p->e && (*p->s == '[' || *p->s == '{'))
			return fail(p, "nested arrays and inline tables are not understood");
		if (n++)
			buf_adds(p->o, ",");
		if (scalar(p) < 0)
			return -1;
		skip(p, 1);
		if (p->s < p->e && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s >= p->e || *p->s != ']')
			return fail(p, "an array needs , between its values and ] at its end");
		break;
	}
	p->s++;
	buf_adds(p->o, "]");
	return 0;
}

int
toml_to_json(const char *buf, size_t len, struct buf *out, struct json_err *err)
{
	struct tp p = { buf, buf + len, buf, 1, err, out };
	char keys[TOML_KEYS_MAX][TOML_KEY_MAX + 1];
	int nk = 0;

	memset(err, 0, sizeof *err);
	if (memchr(buf, '\0', len))
		return p.s = memchr(buf, '\0', len), fail(&p, "a NUL byte");
	buf_adds(out, "{");
	for (;;) {
		const char *k;
		size_t kl;
		skip(&p, 1);
		if (p.s >= p.e)
			break;
		if (*p.s == '[')
			return fail(&p, "tables are not understood (drun's configuration has none)");
		for (k = p.s; p.s < p.e && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *p.s); p.s++)
			;
		if ((kl = (size_t)(p.s - k)) == 0)
			return fail(&p, "a key (letters, digits, _ and -) expected");
		if (kl > TOML_KEY_MAX)
			return fail(&p, "a key longer than 64 bytes");
		for (int i = 0; i < nk; i++)
			if (strlen(keys[i]) == kl && memcmp(keys[i], k, kl) == 0)
				return p.s = k, fail(&p, "a key given twice");
		if (nk == TOML_KEYS_MAX)
			return fail(&p, "more than 64 keys");
		memcpy(keys[nk], k, kl);
		keys[nk++][kl] = '\0';
		skip(&p, 0);
		if (p.s >= p.e || *p.s != '=')
			return fail(&p, p.s < p.e && *p.s == '.' ? "dotted keys are not understood" : "= expected after the key");
		p.s++;
		skip(&p, 0);
		if (nk > 1)
			buf_adds(out, ",");
		json_quote_buf(out, k, kl);
		buf_adds(out, ":");
		if (value(&p) < 0)
			return -1;
		skip(&p, 0);
		if (p.s < p.e && *p.s != '#' && *p.s != '\n' && *p.s != '\r')
			return fail(&p, "the line goes on after its value");
	}
	buf_adds(out, "}");
	return out->p ? 0 : (snprintf(err->msg, sizeof err->msg, "out of memory"), -1);
}
