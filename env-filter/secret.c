/* The shapes of the credentials that end up in environments by accident.
 * A false positive costs a warning and a -f; a false negative leaks a
 * credential to the agent, so the long-string rule leans to caution. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "secret.h"

#define RUN_MIN 32		/* shortest run judged by entropy */
/* Entropy bounds, in hundredths of the most a run of its length could have
 * in its alphabet: random keys come close to it, words and paths do not. */
#define MIXED_PCT 85		/* upper and lower case: base64, alphabet 64 */
#define SINGLE_PCT 80		/* one case: base32/base36, alphabet 36 */

static int
is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int
is_upper_alnum(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int
is_b64url(int c)
{
	return is_alnum(c) || c == '-' || c == '_';
}

static int
is_token(int c)		/* base64, base64url and hex alphabets together */
{
	return is_b64url(c) || c == '+' || c == '/' || c == '=';
}

static int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Known prefixes: prefix, then at least min characters of the given class. */
static const struct prefix {
	const char *pre;
	size_t min;
	int (*cls)(int);
	const char *shape;
} prefixes[] = {
	{ "ghp_", 20, is_alnum, "GitHub token" },
	{ "gho_", 20, is_alnum, "GitHub token" },
	{ "ghu_", 20, is_alnum, "GitHub token" },
	{ "ghs_", 20, is_alnum, "GitHub token" },
	{ "ghr_", 20, is_alnum, "GitHub token" },
	{ "github_pat_", 20, is_b64url, "GitHub token" },
	{ "glpat-", 20, is_b64url, "GitLab token" },
	{ "sk-", 20, is_b64url, "secret API key (sk-)" },
	{ "AKIA", 16, is_upper_alnum, "AWS access key" },
	{ "ASIA", 16, is_upper_alnum, "AWS access key" },
	{ "xoxa-", 10, is_b64url, "Slack token" },
	{ "xoxb-", 10, is_b64url, "Slack token" },
	{ "xoxp-", 10, is_b64url, "Slack token" },
	{ "xoxr-", 10, is_b64url, "Slack token" },
	{ "xoxs-", 10, is_b64url, "Slack token" },
	{ "npm_", 36, is_alnum, "npm token" },
	{ "AIza", 35, is_b64url, "Google API key" },
};

static size_t
span(const char *s, size_t len, int (*cls)(int))
{
	size_t i = 0;

	while (i < len && cls((unsigned char)s[i]))
		i++;
	return i;
}

/* eyJ...{8,}.{8,}.: header and payload of base64url JSON, any signature. */
static int
jwt_at(const char *s, size_t len)
{
	size_t a, b;

	if (len < 3 || memcmp(s, "eyJ", 3) != 0)
		return 0;
	a = span(s, len, is_b64url);
	if (a < 10 || a >= len || s[a] != '.')
		return 0;
	b = span(s + a + 1, len - a - 1, is_b64url);
	return b >= 8 && a + 1 + b < len && s[a + 1 + b] == '.';
}

/* log2(x) in 16.16 fixed point, x >= 1: integer part from the top bit,
 * fraction by repeated squaring (no libm: it would double the binary). */
static uint64_t
log2_q16(uint64_t x)
{
	uint64_t r = 0, m;
	int i;

	while (x >> (r + 1))
		r++;
	m = (x << 16) >> r;		/* x / 2^r in [1, 2), 16.16 */
	r <<= 16;
	for (i = 15; i >= 0; i--) {
		m = (m * m) >> 16;
		if (m >= (2u << 16)) {
			m >>= 1;
			r |= (uint64_t)1 << i;
		}
	}
	return r;
}

/* A long run that is random enough to be a key: its Shannon entropy,
 * H = log2(len) - sum(c * log2(c)) / len, against a share of the most
 * possible, all in fixed point. A run that starts with '/' is a path:
 * judged only when it mixes both cases and digits (store paths such as
 * /nix/store/<hash>-name are lower case). */
static int
high_entropy(const char *s, size_t len)
{
	unsigned cnt[256] = { 0 };
	int lower = 0, upper = 0, digit = 0, hexonly = 1;
	uint64_t sum = 0, alpha, pct, lhs, rhs;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		cnt[c]++;
		lower |= c >= 'a' && c <= 'z';
		upper |= c >= 'A' && c <= 'Z';
		digit |= c >= '0' && c <= '9';
		hexonly &= is_hex(c);
	}
	/* hex keys: 4 bits per character at most, judged by their mix */
	if (hexonly)
		return digit && (lower || upper) && !(lower && upper);
	if (!digit || !(lower || upper))
		return 0;
	if (s[0] == '/' && !(lower && upper))
		return 0;
	for (i = 0; i < 256; i++)
		if (cnt[i] > 1)
			sum += cnt[i] * log2_q16(cnt[i]);
	alpha = lower && upper ? 64 : 36;
	pct = lower && upper ? MIXED_PCT : SINGLE_PCT;
	lhs = ((uint64_t)len * log2_q16(len) - sum) * 100;	/* len * H */
	rhs = pct * (uint64_t)len * log2_q16(len < alpha ? len : alpha);
	return lhs >= rhs;
}

const char *
secret_shape(const char *val, size_t len)
{
	size_t i, j, n;

	for (i = 0; i + 11 <= len; i++)
		if (memcmp(val + i, "-----BEGIN ", 11) == 0)
			return "PEM block";
	for (i = 0; i < len; i++) {
		/* a shape starts a word */
		if (i > 0 && is_alnum((unsigned char)val[i - 1]))
			continue;
		for (j = 0; j < sizeof prefixes / sizeof prefixes[0]; j++) {
			const struct prefix *p = &prefixes[j];
			size_t pl = strlen(p->pre);
			if (len - i > pl && memcmp(val + i, p->pre, pl) == 0 &&
			    span(val + i + pl, len - i - pl, p->cls) >= p->min)
				return p->shape;
		}
		if (jwt_at(val + i, len - i))
			return "JWT";
	}
	for (i = 0; i < len; i += n) {
		n = span(val + i, len - i, is_token);
		if (n >= RUN_MIN && high_entropy(val + i, n))
			return "long random string";
		if (n == 0)
			n = 1;
	}
	return NULL;
}
