#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jwt.h"
#include "profile.h"

/*
 * The defaults, checked against the real CLIs from npm:
 *  claude: ~/.claude/.credentials.json {"claudeAiOauth": {"accessToken",
 *    "refreshToken", "expiresAt" (Date.now() + expires_in*1000: ms), ...}};
 *    the account is ~/.claude.json's oauthAccount.accountUuid.
 *  codex: ~/.codex/auth.json {"OPENAI_API_KEY", "tokens": {"id_token",
 *    "access_token" (JWTs), "refresh_token", "account_id"}, "last_refresh"};
 *    the expiry is the access token's "exp" claim (s).
 *  gemini: ~/.gemini/oauth_creds.json (google-auth-library Credentials:
 *    "access_token", "refresh_token", "expiry_date" (getTime() +
 *    expires_in*1e3: ms), "id_token"); the account is the id token's "sub".
 *
 * None of those files proves whose a renewed token is: the agent wrote
 * them. "verify" asks the provider with the token itself: claude's OAuth
 * profile endpoint answers {"account": {"uuid"}}, the accountUuid put
 * recorded; Google's userinfo answers {"sub"}, the id token's sub. codex has
 * no such request here: its renewals are not taken back (sign in again).
 *
 * "login" is each CLI's own sign-in, checked with its --help: `claude auth
 * login`, `codex login`; gemini has no login subcommand: its interactive
 * start asks how to sign in (quit it once signed in).
 */
static const char defaults_json[] =
"{"
" \"claude\": {"
"  \"signin\": \".claude/.credentials.json\","
"  \"expiry\": {\"pointer\": \"/claudeAiOauth/expiresAt\", \"unit\": \"ms\"},"
"  \"account\": {\"file\": \".claude.json\", \"pointer\": \"/oauthAccount/accountUuid\"},"
"  \"verify\": {\"url\": \"https://api.anthropic.com/api/oauth/profile\", \"method\": \"GET\","
"   \"token\": \"/claudeAiOauth/accessToken\", \"auth\": \"bearer\","
"   \"headers\": [\"anthropic-beta: oauth-2025-04-20\"], \"account\": \"/account/uuid\"},"
"  \"full_setup\": [\".claude\"], \"login\": [\"claude\", \"auth\", \"login\"]"
" },"
" \"codex\": {"
"  \"signin\": \".codex/auth.json\","
"  \"expiry\": {\"pointer\": \"/tokens/access_token\", \"jwt\": \"/exp\", \"unit\": \"s\"},"
"  \"account\": {\"pointer\": \"/tokens/account_id\"},"
"  \"full_setup\": [\".codex\"], \"login\": [\"codex\", \"login\"]"
" },"
" \"gemini\": {"
"  \"signin\": \".gemini/oauth_creds.json\","
"  \"expiry\": {\"pointer\": \"/expiry_date\", \"unit\": \"ms\"},"
"  \"account\": {\"pointer\": \"/id_token\", \"jwt\": \"/sub\"},"
"  \"verify\": {\"url\": \"https://www.googleapis.com/oauth2/v3/userinfo\", \"method\": \"GET\","
"   \"token\": \"/access_token\", \"auth\": \"bearer\", \"account\": \"/sub\"},"
"  \"full_setup\": [\".gemini\"], \"login\": [\"gemini\"]"
" }"
"}";

enum { MAX_AHEAD_DEFAULT = 90 * 86400, MAX_AHEAD_LIMIT = 3650 * 86400 };

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errn, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errn > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errn, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

void
profiles_names(const struct profiles *ps, char *buf, size_t n)
{
	size_t len = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < ps->n && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "", ps->p[i].name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

int
prof_name_ok(const char *s)
{
	size_t i;

	if (s == NULL || *s == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];
		if (i >= PROF_NAME_MAX)
			return 0;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (i > 0 && (c == '-' || c == '_' || c == '.'))
			continue;
		return 0;
	}
	return 1;
}

int
prof_relpath_ok(const char *s)
{
	const char *p = s, *e;
	size_t n;

	if (s == NULL || *s == '\0' || *s == '/' || strlen(s) >= PROF_PATH_MAX)
		return 0;
	for (;;) {
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				return 0;
		if (e == NULL)
			return 1;
		p = e + 1;
	}
}

/* Tokenize a document of any size up to the bounds: count, then allocate
 * (in st, of nst tokens, when they fit: free *out only when it is not st). */
static int
tokenize_in(const char *buf, size_t len, jsmntok_t *st, int nst, jsmntok_t **out)
{
	jsmn_parser p;
	jsmntok_t *t;
	int n;

	if (len > PROF_FILE_MAX)
		return errno = EFBIG, -1;
	jsmn_init(&p);
	n = jsmn_parse(&p, buf, len, NULL, 0);
	if (n <= 0)
		return errno = EINVAL, -1;
	if (n > PROF_TOKENS_MAX)
		return errno = E2BIG, -1;
	if (st != NULL && n <= nst)
		t = memset(st, 0, (size_t)n * sizeof *t);
	else if ((t = calloc((size_t)n, sizeof *t)) == NULL)
		return -1;
	n = json_parse(buf, len, t, (unsigned)n);
	if (n < 0) {
		int e = errno;
		if (t != st)
			free(t);
		return errno = e, -1;
	}
	*out = t;
	return n;
}

static int
tokenize(const char *buf, size_t len, jsmntok_t **out)
{
	return tokenize_in(buf, len, NULL, 0, out);
}

static int
get_str(const char *js, const jsmntok_t *t, int obj, const char *key, char *out, size_t n,
    int required, char *err, size_t errn, const char *what)
{
	int k = json_get(js, t, obj, key), l;

	if (k == -2)
		return fail(err, errn, "%s: duplicate \"%s\"", what, key);
	if (k < 0) {
		if (required)
			return fail(err, errn, "%s: \"%s\" missing", what, key);
		out[0] = '\0';
		return 0;
	}
	if (t[k].type != JSMN_STRING)
		return fail(err, errn, "%s: \"%s\" is not a string", what, key);
	l = json_str(js, &t[k], out, n);
	if (l < 0 || (size_t)l != strlen(out))
		return fail(err, errn, "%s: \"%s\" too long or holds a NUL", what, key);
	return 0;
}

static int
only_keys(const char *js, const jsmntok_t *t, int obj, const char *const *keys,
    char *err, size_t errn, const char *what)
{
	int k = obj + 1, m, j, found;

	for (m = 0; m < t[obj].size; m++) {
		for (found = 0, j = 0; keys[j] != NULL && !found; j++)
			found = json_eq(js, &t[k], keys[j]);
		if (!found)
			return fail(err, errn, "%s: unknown member \"%.*s\"", what,
			    t[k].end - t[k].start > 40 ? 40 : t[k].end - t[k].start, js + t[k].start);
		k = json_next(t, k + 1);
	}
	return 0;
}

static int
ptr_ok(const char *p)
{
	return *p == '\0' || *p == '/';
}

static int
parse_field(const char *js, const jsmntok_t *t, int obj, int expiry, struct prof_field *f,
    char *err, size_t errn, const char *what)
{
	static const char *const ekeys[] = { "file", "pointer", "jwt", "unit", NULL };
	static const char *const akeys[] = { "file", "pointer", "jwt", NULL };
	char unit[8];

	if (t[obj].type != JSMN_OBJECT)
		return fail(err, errn, "%s is not an object", what);
	if (only_keys(js, t, obj, expiry ? ekeys : akeys, err, errn, what) < 0)
		return -1;
	memset(f, 0, sizeof *f);
	if (get_str(js, t, obj, "file", f->file, sizeof f->file, 0, err, errn, what) < 0 ||
	    get_str(js, t, obj, "pointer", f->pointer, sizeof f->pointer, 1, err, errn, what) < 0 ||
	    get_str(js, t, obj, "jwt", f->jwt, sizeof f->jwt, 0, err, errn, what) < 0)
		return -1;
	if (f->file[0] != '\0' && !prof_relpath_ok(f->file))
		return fail(err, errn, "%s: \"file\" is not a plain relative path", what);
	if (!ptr_ok(f->pointer) || !ptr_ok(f->jwt))
		return fail(err, errn, "%s: a JSON pointer must be empty or start with /", what);
	if (expiry) {
		if (get_str(js, t, obj, "unit", unit, sizeof unit, 1, err, errn, what) < 0)
			return -1;
		if (strcmp(unit, "s") == 0)
			f->unit = PROF_UNIT_S;
		else if (strcmp(unit, "ms") == 0)
			f->unit = PROF_UNIT_MS;
		else
			return fail(err, errn, "%s: unit must be \"s\" or \"ms\"", what);
	}
	return 0;
}

/* A header name: RFC 9110 token characters only. */
static int
hdr_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("!#$%&'*+-.^_`|~", s[i])))
			return 0;
	return 1;
}

/* A fixed header: "Name: value", printable ASCII, no CR/LF. */
static int
hdr_line_ok(const char *s)
{
	const char *c = strchr(s, ':');

	if (c == NULL || !hdr_name_ok(s, (size_t)(c - s)) || c[1] != ' ' || c[2] == '\0')
		return 0;
	for (const char *p = c + 1; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return 0;
	return 1;
}

static int
parse_verify(const char *js, const jsmntok_t *t, int obj, struct prof_verify *v,
    char *err, size_t errn, const char *what)
{
	static const char *const keys[] = { "url", "method", "token", "auth", "headers", "account", NULL };
	char method[8], auth[80];
	int k, i, j;

	if (t[obj].type != JSMN_OBJECT)
		return fail(err, errn, "%s: \"verify\" is not an object", what);
	if (only_keys(js, t, obj, keys, err, errn, what) < 0)
		return -1;
	memset(v, 0, sizeof *v);
	if (get_str(js, t, obj, "url", v->url, sizeof v->url, 1, err, errn, what) < 0 ||
	    get_str(js, t, obj, "method", method, sizeof method, 1, err, errn, what) < 0 ||
	    get_str(js, t, obj, "token", v->token, sizeof v->token, 1, err, errn, what) < 0 ||
	    get_str(js, t, obj, "auth", auth, sizeof auth, 1, err, errn, what) < 0 ||
	    get_str(js, t, obj, "account", v->account, sizeof v->account, 1, err, errn, what) < 0)
		return -1;
	/* https only: the token never travels in the clear */
	if (strncmp(v->url, "https://", 8) != 0 || v->url[8] == '\0' || strcspn(v->url, " \t\r\n") != strlen(v->url))
		return fail(err, errn, "%s: \"verify\": \"url\" must be an https:// URL", what);
	if (strcmp(method, "GET") == 0)
		v->post = 0;
	else if (strcmp(method, "POST") == 0)
		v->post = 1;
	else
		return fail(err, errn, "%s: \"verify\": \"method\" must be \"GET\" or \"POST\"", what);
	if (!ptr_ok(v->token) || v->token[0] == '\0' || !ptr_ok(v->account))
		return fail(err, errn, "%s: \"verify\": a JSON pointer must start with /", what);
	if (strcmp(auth, "bearer") == 0) {
		strcpy(v->header, "Authorization");
		v->bearer = 1;
	} else if (strncmp(auth, "header ", 7) == 0 && hdr_name_ok(auth + 7, strlen(auth + 7))) {
		strcpy(v->header, auth + 7);
	} else {
		return fail(err, errn, "%s: \"verify\": \"auth\" must be \"bearer\" or \"header NAME\"", what);
	}
	k = json_get(js, t, obj, "headers");
	if (k == -2)
		return fail(err, errn, "%s: \"verify\": \"headers\" duplicated", what);
	if (k >= 0) {
		if (t[k].type != JSMN_ARRAY || t[k].size > PROF_HDR_MAX)
			return fail(err, errn, "%s: \"verify\": \"headers\" must be an array of at most %d strings", what, PROF_HDR_MAX);
		for (i = 0, j = k + 1; i < t[k].size; i++, j = json_next(t, j)) {
			int l = t[j].type == JSMN_STRING ? json_str(js, &t[j], v->extra[i], sizeof v->extra[i]) : -1;
			if (l < 0 || (size_t)l != strlen(v->extra[i]) || !hdr_line_ok(v->extra[i]))
				return fail(err, errn, "%s: \"verify\": header %d is not \"Name: value\" in printable ASCII", what, i + 1);
		}
		v->nextra = t[k].size;
	}
	return 0;
}

/* "login": 1 to PROF_LOGIN_MAX printable words; the first a command name
 * (looked up in the agent's PATH) or an absolute path. */
static int
parse_login(const char *js, const jsmntok_t *t, int obj, struct profile *p, char *err, size_t errn)
{
	int k = json_get(js, t, obj, "login"), i, j;

	p->nlogin = 0;
	if (k == -2)
		return fail(err, errn, "%s: \"login\" duplicated", p->name);
	if (k < 0)
		return 0;
	if (t[k].type != JSMN_ARRAY || t[k].size < 1 || t[k].size > PROF_LOGIN_MAX)
		return fail(err, errn, "%s: \"login\" must be an array of 1 to %d strings", p->name, PROF_LOGIN_MAX);
	for (i = 0, j = k + 1; i < t[k].size; i++, j = json_next(t, j)) {
		char *w = p->login[i];
		int l = t[j].type == JSMN_STRING ? json_str(js, &t[j], w, PROF_PATH_MAX) : -1, bad = l <= 0;
		for (int c = 0; !bad && w[c]; c++)
			bad = (unsigned char)w[c] < 0x20 || w[c] == 0x7f;
		if (bad || (size_t)l != strlen(w) || (i == 0 && w[0] != '/' && strchr(w, '/')))
			return fail(err, errn, "%s: login word %d must be a printable string%s", p->name, i + 1,
			    i == 0 ? " (a command name or an absolute path)" : "");
	}
	p->nlogin = t[k].size;
	return 0;
}

static int
parse_one(const char *js, const jsmntok_t *t, int obj, struct profile *p, char *err, size_t errn)
{
	static const char *const keys[] = { "signin", "expiry", "account", "full_setup", "max_ahead", "verify",
		"login", NULL };
	const char *what = p->name;
	int k, i, j;
	int64_t v;

	if (t[obj].type != JSMN_OBJECT)
		return fail(err, errn, "profile %s is not an object", what);
	if (only_keys(js, t, obj, keys, err, errn, what) < 0)
		return -1;
	if (get_str(js, t, obj, "signin", p->signin, sizeof p->signin, 1, err, errn, what) < 0)
		return -1;
	if (!prof_relpath_ok(p->signin))
		return fail(err, errn, "%s: \"signin\" is not a plain relative path", what);
	k = json_get(js, t, obj, "expiry");
	if (k < 0)
		return fail(err, errn, "%s: \"expiry\" %s", what, k == -2 ? "duplicated" : "missing");
	if (parse_field(js, t, k, 1, &p->expiry, err, errn, what) < 0)
		return -1;
	k = json_get(js, t, obj, "account");
	if (k < 0)
		return fail(err, errn, "%s: \"account\" %s", what, k == -2 ? "duplicated" : "missing");
	if (parse_field(js, t, k, 0, &p->account, err, errn, what) < 0)
		return -1;
	if (p->expiry.file[0] != '\0' && strcmp(p->expiry.file, p->signin) != 0)
		return fail(err, errn, "%s: the expiry must be in the sign-in file", what);
	if (strcmp(p->account.file, p->signin) == 0)
		p->account.file[0] = '\0';
	p->expiry.file[0] = '\0';
	p->max_ahead = MAX_AHEAD_DEFAULT;
	k = json_get(js, t, obj, "max_ahead");
	if (k == -2)
		return fail(err, errn, "%s: \"max_ahead\" duplicated", what);
	if (k >= 0) {
		if (json_int(js, &t[k], &v) < 0 || v <= 0 || v > MAX_AHEAD_LIMIT)
			return fail(err, errn, "%s: \"max_ahead\" must be whole seconds, 1 to %d", what, MAX_AHEAD_LIMIT);
		p->max_ahead = (uint64_t)v;
	}
	memset(&p->verify, 0, sizeof p->verify);
	k = json_get(js, t, obj, "verify");
	if (k == -2)
		return fail(err, errn, "%s: \"verify\" duplicated", what);
	if (k >= 0 && parse_verify(js, t, k, &p->verify, err, errn, what) < 0)
		return -1;
	p->nfull = 0;
	k = json_get(js, t, obj, "full_setup");
	if (k == -2)
		return fail(err, errn, "%s: \"full_setup\" duplicated", what);
	if (k >= 0) {
		if (t[k].type != JSMN_ARRAY)
			return fail(err, errn, "%s: \"full_setup\" is not an array", what);
		if (t[k].size > PROF_FULL_MAX)
			return fail(err, errn, "%s: more than %d full_setup folders", what, PROF_FULL_MAX);
		for (i = 0, j = k + 1; i < t[k].size; i++, j = json_next(t, j)) {
			int l;
			if (t[j].type != JSMN_STRING)
				return fail(err, errn, "%s: a full_setup folder is not a string", what);
			l = json_str(js, &t[j], p->full[i], sizeof p->full[i]);
			if (l < 0 || (size_t)l != strlen(p->full[i]) || !prof_relpath_ok(p->full[i]))
				return fail(err, errn, "%s: full_setup folder %d is not a plain relative path", what, i + 1);
		}
		p->nfull = t[k].size;
	}
	return parse_login(js, t, obj, p, err, errn);
}

int
profiles_parse(const char *buf, size_t len, struct profiles *ps, char *err, size_t errn)
{
	struct profiles *next;
	/* a user's profile file (corral's for agent "none": some 20 tokens)
	 * on the stack: no calloc, which musl maps a page for */
	jsmntok_t st[64], *t = NULL;
	int n, k, m, i;

	n = tokenize_in(buf, len, st, (int)(sizeof st / sizeof st[0]), &t);
	if (n < 0)
		return fail(err, errn, errno == EFBIG || errno == E2BIG ? "profiles: too large" : "profiles: malformed JSON");
	/* parsed aside (some 117 KB: an mmap, its page faults and a munmap)
	 * only when there is something to keep: an empty set is filled in
	 * place, and emptied again when the text fails */
	if (ps->n == 0) {
		next = ps;
	} else {
		if ((next = malloc(sizeof *next)) == NULL) {
			if (t != st)
				free(t);
			return -1;
		}
		profiles_copy(next, ps);
	}
	if (t[0].type != JSMN_OBJECT) {
		fail(err, errn, "profiles: not a JSON object");
		goto bad;
	}
	for (m = 0, k = 1; m < t[0].size; m++, k = json_next(t, k + 1)) {
		struct profile p;
		memset(&p, 0, sizeof p);
		if (json_str(buf, &t[k], p.name, sizeof p.name) < 0 || !prof_name_ok(p.name)) {
			fail(err, errn, "profiles: bad agent name");
			goto bad;
		}
		if (json_get(buf, t, 0, p.name) == -2) {
			fail(err, errn, "profiles: %s appears twice", p.name);
			goto bad;
		}
		if (parse_one(buf, t, k + 1, &p, err, errn) < 0)
			goto bad;
		for (i = 0; i < next->n && strcmp(next->p[i].name, p.name) != 0; i++)
			;
		if (i == next->n) {
			if (next->n == PROF_MAX) {
				fail(err, errn, "profiles: more than %d agents", PROF_MAX);
				goto bad;
			}
			next->n++;
		}
		next->p[i] = p;
	}
	if (next != ps) {
		profiles_copy(ps, next);
		free(next);
	}
	if (t != st)
		free(t);
	return 0;
bad:
	if (next != ps)
		free(next);
	else
		ps->n = 0;
	if (t != st)
		free(t);
	errno = EINVAL;
	return -1;
}

const struct profiles *
profiles_embedded(void)
{
	/* parsed once a process (corral asks in several places); a copy is
	 * far cheaper than a parse */
	static struct profiles ps;
	static int state;	/* 0 not yet, 1 parsed, -1 does not parse */
	char err[128];

	if (state == 0)
		state = profiles_parse(defaults_json, sizeof defaults_json - 1, &ps, err, sizeof err) < 0 ? -1 : 1;
	return state > 0 ? &ps : NULL;
}

int
profiles_embedded_has(const char *name)
{
	const struct profiles *ps;
	size_t n = strlen(name);
	const char *s = NULL;

	/* Speed: corral asks this of every command it runs (/bin/true too),
	 * and a parse is most of planning's cost. The embedded text has no
	 * escapes, so a key NAME is spelled "NAME" there: where that is
	 * nowhere, NAME is no profile, and nothing is parsed. */
	if (n > 0 && memchr(defaults_json, '\\', sizeof defaults_json - 1) == NULL) {
		for (s = defaults_json + 1; (s = strstr(s, name)) != NULL; s += n)
			if (s[-1] == '"' && s[n] == '"')
				break;
		if (s == NULL)
			return 0;
	}
	ps = profiles_embedded();
	return ps != NULL && profiles_find(ps, name) != NULL;
}

int
profiles_embedded_count(void)
{
	const struct profiles *ps;
	const char *s = defaults_json, *e = defaults_json + sizeof defaults_json - 1;
	int depth = 0, n = 0;

	/* Speed, as profiles_embedded_has: the text has no escapes, so a
	 * string ends at the next '"', and each member of the top-level
	 * object is a ':' at depth 1 outside strings. Nothing is parsed. */
	if (memchr(s, '\\', (size_t)(e - s)) == NULL) {
		for (; s < e; s++) {
			if (*s == '"') {
				if ((s = memchr(s + 1, '"', (size_t)(e - s - 1))) == NULL)
					break;
			} else if (*s == '{' || *s == '[') {
				depth++;
			} else if (*s == '}' || *s == ']') {
				depth--;
			} else if (*s == ':' && depth == 1) {
				n++;
			}
		}
		if (s != NULL && depth == 0)
			return n;
	}
	ps = profiles_embedded();
	return ps != NULL ? ps->n : -1;
}

int
profiles_defaults(struct profiles *out)
{
	const struct profiles *ps = profiles_embedded();

	if (ps == NULL)
		return errno = EINVAL, -1;
	profiles_copy(out, ps);
	return 0;
}

/* Speed. A struct profiles is some 117 KB, nearly all of it the unused
 * slots past n: a whole copy writes (so faults in) 29 pages where the three
 * embedded profiles fill 6. Only the slots in use are copied; the rest of
 * dst is left as it was, and nothing reads past n. */
void
profiles_copy(struct profiles *dst, const struct profiles *src)
{
	if (dst == src)
		return;
	memcpy(dst->p, src->p, (size_t)src->n * sizeof src->p[0]);
	dst->n = src->n;
}

const struct profile *
profiles_find(const struct profiles *ps, const char *name)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (strcmp(ps->p[i].name, name) == 0)
			return &ps->p[i];
	return NULL;
}

/* Find the field's value. Returns the token index into *doc and *toks (which
 * the caller frees: *toks always, *payload when not NULL), or -1. */
static int
locate(const struct prof_field *f, const char *buf, size_t len, const char **doc,
    jsmntok_t **toks, char **payload, char *err, size_t errn)
{
	jsmntok_t *t = NULL, *pt = NULL;
	char seg[8192], *pl;
	int n, k, l;

	*payload = NULL;
	n = tokenize(buf, len, &t);
	if (n < 0)
		return fail(err, errn, errno == EFBIG || errno == E2BIG ? "too large" : "malformed JSON");
	k = json_pointer(buf, t, n, 0, f->pointer);
	if (k < 0) {
		free(t);
		return fail(err, errn, "nothing at %s", f->pointer);
	}
	if (f->jwt[0] == '\0') {
		*doc = buf;
		*toks = t;
		return k;
	}
	/* A JWT: header.payload.signature, base64url; we read the payload. */
	if (t[k].type != JSMN_STRING) {
		free(t);
		return fail(err, errn, "%s is not a JWT string", f->pointer);
	}
	l = jwt_payload(buf + t[k].start, (size_t)(t[k].end - t[k].start), seg, sizeof seg);
	free(t);
	if (l == JWT_E_SHAPE)
		return fail(err, errn, "%s is not a JWT", f->pointer);
	if (l <= 0)
		return fail(err, errn, "%s: JWT payload is not base64url", f->pointer);
	pl = malloc((size_t)l + 1);
	if (pl == NULL)
		return -1;
	memcpy(pl, seg, (size_t)l);
	pl[l] = '\0';
	n = tokenize(pl, (size_t)l, &pt);
	if (n < 0) {
		free(pl);
		return fail(err, errn, "%s: JWT payload is not JSON", f->pointer);
	}
	k = json_pointer(pl, pt, n, 0, f->jwt);
	if (k < 0) {
		free(pt);
		free(pl);
		return fail(err, errn, "nothing at %s in the JWT at %s", f->jwt, f->pointer);
	}
	*doc = pl;
	*toks = pt;
	*payload = pl;
	return k;
}

int
prof_expiry(const struct prof_field *f, const char *buf, size_t len, int64_t *secs, char *err, size_t errn)
{
	const char *doc;
	jsmntok_t *t;
	char *pl;
	int64_t v;
	int k, r;

	k = locate(f, buf, len, &doc, &t, &pl, err, errn);
	if (k < 0)
		return -1;
	r = json_int(doc, &t[k], &v);
	free(t);
	free(pl);
	if (r < 0 || v < 0)
		return fail(err, errn, "expiry is not a whole non-negative number");
	*secs = f->unit == PROF_UNIT_MS ? v / 1000 : v;
	return 0;
}

int
prof_account(const struct prof_field *f, const char *buf, size_t len, char *out, size_t n, char *err, size_t errn)
{
	const char *doc;
	jsmntok_t *t;
	char *pl;
	int k, l;

	k = locate(f, buf, len, &doc, &t, &pl, err, errn);
	if (k < 0)
		return -1;
	if (t[k].type != JSMN_STRING) {
		free(t);
		free(pl);
		return fail(err, errn, "account identity is not a string");
	}
	l = json_str(doc, &t[k], out, n);
	free(t);
	free(pl);
	if (l <= 0 || (size_t)l != strlen(out))
		return fail(err, errn, "account identity is empty, too long or holds a NUL");
	return 0;
}

int
prof_token(const struct prof_verify *v, const char *buf, size_t len, char *out, size_t n,
    char *err, size_t errn)
{
	struct prof_field f;
	const char *doc;
	jsmntok_t *t;
	char *pl;
	int k, l;

	memset(&f, 0, sizeof f);
	snprintf(f.pointer, sizeof f.pointer, "%s", v->token);
	k = locate(&f, buf, len, &doc, &t, &pl, err, errn);
	if (k < 0)
		return -1;
	l = t[k].type == JSMN_STRING ? json_str(doc, &t[k], out, n) : -1;
	free(t);
	free(pl);
	if (l <= 0 || (size_t)l != strlen(out) || l > PROF_TOKEN_MAX ||
	    strcspn(out, "\r\n") != (size_t)l)
		return fail(err, errn, "the token at %s is not a string of 1 to %d bytes on one line",
		    v->token, PROF_TOKEN_MAX);
	return 0;
}

int
prof_renew_ok(int64_t old_exp, const char *old_acct, int64_t new_exp, const char *new_acct,
    int64_t now, uint64_t max_ahead, const char **why)
{
	if (strcmp(old_acct, new_acct) != 0)
		return *why = "it names another account", -1;
	if (new_exp <= now)
		return *why = "it has already expired", -1;
	if ((uint64_t)(new_exp - now) > max_ahead)
		return *why = "its expiry is implausibly far off", -1;
	if (new_exp <= old_exp)
		return *why = "it does not expire later than the stored one", -1;
	return 0;
}
