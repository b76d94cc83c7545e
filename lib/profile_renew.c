/* profile_renew: a renewed sign-in checked as a whole against the stored one
 * (see profile.h, prof_renew_whole). Pure: no I/O. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "profile.h"

struct doc {
	const char *js;
	jsmntok_t *t;
	int n;
};

static int
load(struct doc *d, const char *js, size_t len)
{
	unsigned cap = len / 2 + 2;

	if (cap > PROF_TOKENS_MAX)
		cap = PROF_TOKENS_MAX;
	d->js = js;
	if ((d->t = malloc(cap * sizeof *d->t)) == NULL)
		return -1;
	if ((d->n = json_parse(js, len, d->t, cap)) < 0 || json_unique_keys(js, d->t, d->n, 0) != 1)
		return -1;
	return 0;
}

/* Append "/" and key (RFC 6901: ~ as ~0, / as ~1) to ptr. -1: too long. */
static int
push(char *ptr, size_t n, const char *key, size_t kl)
{
	size_t l = strlen(ptr);

	if (l + 1 >= n)
		return -1;
	ptr[l++] = '/';
	for (size_t i = 0; i < kl; i++) {
		const char *e = key[i] == '~' ? "~0" : key[i] == '/' ? "~1" : NULL;
		if (l + (e ? 2 : 1) >= n)
			return -1;
		if (e) {
			memcpy(ptr + l, e, 2);
			l += 2;
		} else {
			ptr[l++] = key[i];
		}
	}
	ptr[l] = '\0';
	return 0;
}

struct cmp {
	const struct doc *a, *b;
	const char *may[3];	/* pointers whose values may differ */
	char at[PROF_PTR_MAX * 2];	/* where they differ */
};

static int
allowed(const struct cmp *c)
{
	for (int i = 0; i < 3; i++)
		if (c->may[i] && c->may[i][0] && strcmp(c->may[i], c->at) == 0)
			return 1;
	return 0;
}

/* 0 the values a->t[i] and b->t[j] agree (but where allowed), -1 they do not
 * (c->at names where), -2 too deep or too long to say. */
static int
same(struct cmp *c, int i, int j, int depth)
{
	const jsmntok_t *x = &c->a->t[i], *y = &c->b->t[j];
	size_t l = strlen(c->at);
	int r = 0;

	if (allowed(c))
		return 0;
	if (depth > JSON_MAX_DEPTH)
		return -2;
	if (x->type != y->type || x->size != y->size)
		return -1;
	if (x->type == JSMN_OBJECT) {
		int k = i + 1;
		for (int m = 0; m < x->size && r == 0; m++, k = json_next(c->a->t, k + 1)) {
			char key[PROF_PTR_MAX];
			int kl = json_str(c->a->js, &c->a->t[k], key, sizeof key), v;
			if (kl < 0 || memchr(key, '\0', (size_t)kl) || push(c->at, sizeof c->at, key, (size_t)kl) < 0)
				return -2;
			if ((v = json_get(c->b->js, c->b->t, j, key)) < 0)
				return -1;
			r = same(c, k + 1, v, depth + 1);
			if (r == 0)
				c->at[l] = '\0';
		}
		return r;
	}
	if (x->type == JSMN_ARRAY) {
		int p = i + 1, q = j + 1;
		for (int m = 0; m < x->size && r == 0; m++) {
			char ix[16];
			snprintf(ix, sizeof ix, "%d", m);
			if (push(c->at, sizeof c->at, ix, strlen(ix)) < 0)
				return -2;
			r = same(c, p, q, depth + 1);
			if (r == 0)
				c->at[l] = '\0';
			p = json_next(c->a->t, p);
			q = json_next(c->b->t, q);
		}
		return r;
	}
	/* strings and primitives: the same bytes as written */
	if (x->end - x->start != y->end - y->start ||
	    memcmp(c->a->js + x->start, c->b->js + y->start, (size_t)(x->end - x->start)) != 0)
		return -1;
	return 0;
}

int
prof_renew_whole(const struct profile *p, const char *old, size_t olen, const char *nw, size_t nlen,
    const char *account, char *err, size_t errn)
{
	struct doc a = { 0 }, b = { 0 };
	struct cmp c;
	char acct[PROF_ACCOUNT_MAX], e2[160];
	int r = -1;

	memset(&c, 0, sizeof c);
	if (load(&a, old, olen) < 0 || load(&b, nw, nlen) < 0) {
		snprintf(err, errn, "it or the stored sign-in is not one JSON document");
		goto out;
	}
	c.a = &a;
	c.b = &b;
	c.may[0] = p->verify.token;	/* the provider named its account */
	c.may[1] = p->expiry.jwt[0] ? NULL : p->expiry.pointer;	/* plausible, later: prof_renew_ok */
	/* an account held in the sign-in itself (gemini's id token) may be
	 * renewed when it still names the stored account */
	if (!p->account.file[0] && prof_account(&p->account, nw, nlen, acct, sizeof acct, e2, sizeof e2) == 0 &&
	    strcmp(acct, account) == 0)
		c.may[2] = p->account.pointer;
	switch (same(&c, 0, 0, 1)) {
	case 0:
		r = 0;
		break;
	case -1:
		snprintf(err, errn, "its %s differs from the stored sign-in's, and only the access token and the expiry may change (the provider proves nothing else: a new refresh token could be anyone's)",
		    c.at[0] ? c.at : "top level");
		break;
	default:
		snprintf(err, errn, "it is nested too deep or its names are too long to compare with the stored sign-in");
	}
out:
	free(a.t);
	free(b.t);
	return r;
}
