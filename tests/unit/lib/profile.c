#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "tap.h"

static char *
b64url(const char *s, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t n = strlen(s), i, o = 0;
	unsigned v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8 | (unsigned char)s[i + 2];
		out[o++] = a[v >> 18 & 63]; out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63]; out[o++] = a[v & 63];
	}
	if (n - i == 1) {
		v = (unsigned char)s[i] << 16;
		out[o++] = a[v >> 18 & 63]; out[o++] = a[v >> 12 & 63];
	} else if (n - i == 2) {
		v = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8;
		out[o++] = a[v >> 18 & 63]; out[o++] = a[v >> 12 & 63]; out[o++] = a[v >> 6 & 63];
	}
	out[o] = '\0';
	return out;
}

static int
pe(const struct profile *p, const char *js, int64_t *v, char *err)
{
	return prof_expiry(&p->expiry, js, strlen(js), v, err, 128);
}

static int
pa(const struct profile *p, const char *js, char *out, char *err)
{
	return prof_account(&p->account, js, strlen(js), out, PROF_ACCOUNT_MAX, err, 128);
}

int
main(void)
{
	struct profiles ps, keep;
	const struct profile *c, *x, *g;
	char err[128], acct[PROF_ACCOUNT_MAX], js[4096], h[64], pl[512], plj[256];
	const char *why, *doc;
	int64_t v;

	ok(profiles_defaults(&ps) == 0, "defaults parse");
	is_int(ps.n, 3, "three default agents");
	c = profiles_find(&ps, "claude");
	x = profiles_find(&ps, "codex");
	g = profiles_find(&ps, "gemini");
	ok(c && x && g, "claude, codex, gemini present");
	ok(profiles_find(&ps, "nope") == NULL, "unknown agent absent");
	{
		/* parsed once a process: the same table each time, and the
		 * copies are that table; a copy changed leaves it alone */
		const struct profiles *e1 = profiles_embedded(), *e2 = profiles_embedded();
		struct profiles cp;
		ok(e1 != NULL && e1 == e2, "the embedded profiles: one table a process");
		ok(e1 && e1->n == ps.n && memcmp(e1->p, ps.p, (size_t)ps.n * sizeof ps.p[0]) == 0,
		    "profiles_defaults copies it (the slots in use)");
		ok(profiles_defaults(&cp) == 0 && (cp.n = 0, profiles_embedded()->n == 3), "a copy changed leaves it whole");
		is_int(profiles_embedded_count(), e1 ? e1->n : -2, "profiles_embedded_count: the parse's count, without it");
	}
	{
		/* profiles_embedded_has: what profiles_find says of the parse,
		 * for each profile and for names the text spells otherwise */
		static const char *const no[] = { "true", "nope", "login", "signin", "full_setup",
						  "claud", "laude", "claude ", "", NULL };
		int same = 1;
		for (int i = 0; i < ps.n; i++)
			same &= profiles_embedded_has(ps.p[i].name) == 1;
		for (int i = 0; no[i]; i++)
			same &= profiles_embedded_has(no[i]) == 0;
		ok(same, "profiles_embedded_has: every embedded profile, and no other name");
	}
	is_str(c->signin, ".claude/.credentials.json", "claude sign-in path");
	is_str(x->signin, ".codex/auth.json", "codex sign-in path");
	is_str(g->signin, ".gemini/oauth_creds.json", "gemini sign-in path");
	is_str(c->account.file, ".claude.json", "claude account in another file");
	is_str(c->full[0], ".claude", "claude full setup");
	is_int(x->nfull, 1, "codex one full-setup folder");

	/* claude: expiresAt in ms */
	doc = "{\"claudeAiOauth\":{\"accessToken\":\"sk-ant-oat01-x\",\"refreshToken\":\"r\","
	    "\"expiresAt\":1750000000123,\"scopes\":[\"user:inference\"],\"subscriptionType\":\"max\"}}";
	ok(pe(c, doc, &v, err) == 0 && v == 1750000000, "claude expiry ms -> s");
	ok(pa(c, "{\"oauthAccount\":{\"accountUuid\":\"u-1\",\"emailAddress\":\"a@b\"}}", acct, err) == 0 &&
	    strcmp(acct, "u-1") == 0, "claude account from .claude.json");
	ok(pe(c, "{\"claudeAiOauth\":{\"expiresAt\":\"soon\"}}", &v, err) < 0, "string expiry refused");
	diag("%s", err);
	ok(pe(c, "{\"claudeAiOauth\":{\"expiresAt\":1.5e12}}", &v, err) < 0, "fractional expiry refused");
	ok(pe(c, "{\"claudeAiOauth\":{\"expiresAt\":-5}}", &v, err) < 0, "negative expiry refused");
	ok(pe(c, "{\"claudeAiOauth\":{}}", &v, err) < 0 && strstr(err, "nothing at") != NULL, "missing expiry refused");
	ok(pe(c, "{\"claudeAiOauth\":{\"expiresAt\":1,", &v, err) < 0 && strcmp(err, "malformed JSON") == 0,
	    "malformed JSON refused");
	ok(pe(c, "{\"claudeAiOauth\":{\"expiresAt\":1,\"expiresAt\":2}}", &v, err) < 0, "duplicate key refused");
	ok(pa(c, "{\"oauthAccount\":{\"accountUuid\":7}}", acct, err) < 0, "numeric account refused");
	ok(pa(c, "{\"oauthAccount\":{\"accountUuid\":\"\"}}", acct, err) < 0, "empty account refused");
	ok(pa(c, "{\"oauthAccount\":{\"accountUuid\":\"a\\u0000b\"}}", acct, err) < 0, "account with NUL refused");

	/* codex: expiry inside the access token JWT, account_id plain */
	snprintf(plj, sizeof plj, "{\"exp\":1760000000,\"sub\":\"s\"}");
	snprintf(js, sizeof js, "{\"OPENAI_API_KEY\":null,\"tokens\":{\"id_token\":\"x.y.z\","
	    "\"access_token\":\"%s.%s.sig\",\"refresh_token\":\"rt\",\"account_id\":\"acc-9\"},"
	    "\"last_refresh\":\"2025-10-01T00:00:00Z\"}", b64url("{\"alg\":\"RS256\"}", h), b64url(plj, pl));
	ok(pe(x, js, &v, err) == 0 && v == 1760000000, "codex expiry from the JWT exp");
	ok(pa(x, js, acct, err) == 0 && strcmp(acct, "acc-9") == 0, "codex account_id");
	ok(pe(x, "{\"tokens\":{\"access_token\":\"notajwt\"}}", &v, err) < 0, "non-JWT refused");
	ok(pe(x, "{\"tokens\":{\"access_token\":\"a.!!!.c\"}}", &v, err) < 0, "bad base64url refused");
	snprintf(js, sizeof js, "{\"tokens\":{\"access_token\":\"a.%s.c\"}}", b64url("{\"exp\":", pl));
	ok(pe(x, js, &v, err) < 0, "JWT payload not JSON refused");

	/* gemini: expiry_date ms, account = id_token sub */
	snprintf(js, sizeof js, "{\"access_token\":\"ya29.x\",\"refresh_token\":\"1//r\",\"scope\":\"s\","
	    "\"token_type\":\"Bearer\",\"id_token\":\"%s.%s.sig\",\"expiry_date\":1750000999000}",
	    h, b64url("{\"sub\":\"1099\",\"email\":\"a@b.c\"}", pl));
	ok(pe(g, js, &v, err) == 0 && v == 1750000999, "gemini expiry_date ms");
	ok(pa(g, js, acct, err) == 0 && strcmp(acct, "1099") == 0, "gemini account from id_token sub");

	/* overrides */
	keep = ps;
	doc = "{\"claude\":{\"signin\":\"x/creds.json\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},"
	    "\"account\":{\"pointer\":\"/a\"},\"full_setup\":[\"x\",\"y/z\"],\"max_ahead\":3600},"
	    "\"aider\":{\"signin\":\".aider/t.json\",\"expiry\":{\"pointer\":\"/exp\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/u\"}}}";
	ok(profiles_parse(doc, strlen(doc), &ps, err, sizeof err) == 0, "override parses");
	is_int(ps.n, 4, "one added");
	c = profiles_find(&ps, "claude");
	is_str(c->signin, "x/creds.json", "claude replaced");
	is_int(c->max_ahead, 3600, "max_ahead read");
	is_int(c->nfull, 2, "two folders");
	ok(profiles_find(&ps, "aider") != NULL, "new agent added");
	is_int(c->nlogin, 0, "an override without login has none");
	c = profiles_find(&keep, "claude");
	ok(c->nlogin == 3 && strcmp(c->login[0], "claude") == 0 && strcmp(c->login[2], "login") == 0,
	    "embedded claude login: claude auth login");
	c = profiles_find(&keep, "codex");
	ok(c->nlogin == 2 && strcmp(c->login[1], "login") == 0, "embedded codex login: codex login");
	c = profiles_find(&keep, "gemini");
	ok(c->nlogin == 1 && strcmp(c->login[0], "gemini") == 0, "embedded gemini login: gemini itself");
	ps = keep;
	doc = "{\"x\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},"
	    "\"login\":[\"/opt/x/bin/x\",\"login\",\"--device\"]}}";
	ok(profiles_parse(doc, strlen(doc), &ps, err, sizeof err) == 0 && profiles_find(&ps, "x")->nlogin == 3,
	    "a login of an absolute path and two words parses");

#define BAD(d, msg) do { ps = keep; \
	ok(profiles_parse(d, strlen(d), &ps, err, sizeof err) < 0 && ps.n == keep.n && \
	    strcmp(ps.p[0].signin, keep.p[0].signin) == 0, msg); diag("%s", err); } while (0)
	BAD("{\"claude\":{\"signin\":\"/etc/passwd\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"}}}",
	    "absolute sign-in path refused, set unchanged");
	BAD("{\"claude\":{\"signin\":\"../x\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"}}}",
	    "dot-dot refused");
	BAD("{\"claude\":{\"signin\":\"a//b\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"}}}",
	    "empty component refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"h\"},\"account\":{\"pointer\":\"/a\"}}}",
	    "unknown unit refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"}}}",
	    "pointer without slash refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"helper\":1}}",
	    "unknown member refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"account\":{\"pointer\":\"/a\"}}}", "missing expiry refused");
	BAD("{\"Claude\":{}}", "bad agent name refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"}},"
	    "\"claude\":{\"signin\":\"b\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"}}}",
	    "agent given twice refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"max_ahead\":0}}",
	    "zero max_ahead refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"full_setup\":[\"..\"]}}",
	    "full-setup dot-dot refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"login\":[]}}",
	    "an empty login refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"login\":[\"bin/x\"]}}",
	    "a relative login path refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"login\":[\"x\",\"a\\nb\"]}}",
	    "a login word with a newline refused");
	BAD("{\"claude\":{\"signin\":\"a\",\"expiry\":{\"pointer\":\"/e\",\"unit\":\"s\"},\"account\":{\"pointer\":\"/a\"},\"login\":[\"x\",1]}}",
	    "a login word that is not a string refused");
	BAD("[1]", "not an object refused");
	BAD("{", "malformed refused");

	/* the renewal rule */
	ok(prof_renew_ok(1000, "a", 2000, "a", 1500, 3600, &why) == 0, "later, same account, plausible: taken");
	ok(prof_renew_ok(1000, "a", 2000, "b", 1500, 3600, &why) < 0 && strstr(why, "another account"), "other account refused");
	ok(prof_renew_ok(3000, "a", 2000, "a", 1500, 3600, &why) < 0 && strstr(why, "later"), "older refused");
	ok(prof_renew_ok(2000, "a", 2000, "a", 1500, 3600, &why) < 0 && strstr(why, "later"), "same expiry refused");
	ok(prof_renew_ok(100, "a", 1400, "a", 1500, 3600, &why) < 0 && strstr(why, "expired"), "past refused");
	ok(prof_renew_ok(100, "a", 1500 + 3601, "a", 1500, 3600, &why) < 0 && strstr(why, "implausibly"), "absurd refused");
	ok(prof_renew_ok(100, "a", INT64_MAX, "a", 1500, 3600, &why) < 0, "INT64_MAX refused");

	ok(prof_name_ok("claude") && prof_name_ok("mcp.github-1") && !prof_name_ok("") && !prof_name_ok(".x") &&
	    !prof_name_ok("a/b") && !prof_name_ok("A") && !prof_name_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "names");
	return done_testing();
}
