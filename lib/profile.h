/*
 * profile: agent profiles as data, and what a sign-in file says.
 *
 * A profile names where an agent keeps its sign-in (relative to HOME), where
 * the expiry and the account identity sit (JSON pointers, optionally into a
 * JWT held at that pointer, optionally in another file of the same agent),
 * the expiry's unit, and the folders "full setup" grants. Embedded defaults
 * cover claude, codex and gemini; a JSON file of the same shape overrides
 * them by name. Pure: no I/O.
 */
#ifndef CORRAL_PROFILE_H
#define CORRAL_PROFILE_H
#include <stddef.h>
#include <stdint.h>

enum {
	PROF_MAX = 16,			/* profiles in one set */
	PROF_NAME_MAX = 32,		/* [a-z0-9][a-z0-9._-]*: prof_name_ok */
	PROF_PATH_MAX = 256,		/* relative paths under HOME */
	PROF_PTR_MAX = 128,		/* JSON pointers */
	PROF_FULL_MAX = 8,		/* full-setup folders */
	PROF_ACCOUNT_MAX = 256,		/* account identity, bytes */
	PROF_FILE_MAX = 4 << 20,	/* a sign-in or account file, bytes */
	PROF_TOKENS_MAX = 1 << 18,	/* JSON tokens in one file */
	PROF_URL_MAX = 512,		/* a verification URL */
	PROF_HDR_MAX = 4,		/* fixed headers of a verification request */
	PROF_HDR_LEN = 256,
	PROF_TOKEN_MAX = 16384,		/* the token a verification request sends */
	PROF_LOGIN_MAX = 8,		/* words of a login command */
};

enum prof_unit { PROF_UNIT_S, PROF_UNIT_MS };

struct prof_field {
	char file[PROF_PATH_MAX];	/* "" = in the sign-in file itself */
	char pointer[PROF_PTR_MAX];
	char jwt[PROF_PTR_MAX];		/* "" = the value itself; else a pointer into the JWT's payload */
	enum prof_unit unit;		/* expiry only */
};

/* How to ask the provider whose a token is: an HTTPS request made with the
 * new token, outside the boundary; the account id is at a pointer in the
 * JSON answer. Data, not code: a profile file may change it. */
struct prof_verify {
	char url[PROF_URL_MAX];		/* https://...; "" = no way to verify */
	int post;			/* "method": "GET" (0) or "POST" (1, empty body) */
	char token[PROF_PTR_MAX];	/* pointer to the token in the sign-in */
	char header[64];		/* the header that carries it */
	int bearer;			/* "Bearer " before it ("auth": "bearer") */
	char extra[PROF_HDR_MAX][PROF_HDR_LEN];	/* "Name: value", not secret */
	int nextra;
	char account[PROF_PTR_MAX];	/* pointer to the account id in the answer */
};

struct profile {
	char name[PROF_NAME_MAX + 1];
	char signin[PROF_PATH_MAX];
	struct prof_field expiry, account;
	uint64_t max_ahead;		/* seconds: a later expiry is absurd */
	struct prof_verify verify;
	char full[PROF_FULL_MAX][PROF_PATH_MAX];
	int nfull;
	/* "login": the agent's own sign-in flow, run by corral signin
	 * (nlogin 0: none; the first word a command name or absolute path) */
	char login[PROF_LOGIN_MAX][PROF_PATH_MAX];
	int nlogin;
};

struct profiles {
	struct profile p[PROF_MAX];
	int n;
};

/* The embedded defaults (claude, codex, gemini), into *out. */
int profiles_defaults(struct profiles *out);
/* The same, parsed once a process and shared (not thread-safe on the first
 * call); NULL when they do not parse. */
const struct profiles *profiles_embedded(void);
/* 1 when the embedded defaults have a profile name (profiles_embedded,
 * without the parse for a name they do not spell). */
int profiles_embedded_has(const char *name);
/* How many profiles the embedded defaults hold (what profiles_embedded()->n
 * says, without the parse), or -1 when they do not parse. */
int profiles_embedded_count(void);
/* *dst = *src, copying only the profiles in use (slots past n are never read). */
void profiles_copy(struct profiles *dst, const struct profiles *src);
/* Merge a profiles document into *ps: each member replaces the profile of
 * that name or adds one. On error returns -1 and writes a reason into err
 * (errn bytes); *ps is then unchanged. */
int profiles_parse(const char *buf, size_t len, struct profiles *ps, char *err, size_t errn);
/* profiles_defaults, then the profiles document in file (NULL: none) over
 * them. 0, or -1 with a one-line reason in err (file named). */
int profiles_load(const char *file, struct profiles *ps, char *err, size_t errn);
/* profiles_load for a caller that wants one profile, NAME: when the file
 * parses alone, names NAME, and cannot overflow PROF_MAX over the embedded
 * defaults, only the file's profiles are loaded (the defaults not parsed);
 * profiles_find(ps, NAME) is then the profile profiles_load would give (a
 * file's profile replaces the default of its name whole). Anything else:
 * profiles_load itself, so every error is the same. */
int profiles_load_for(const char *file, const char *name, struct profiles *ps, char *err, size_t errn);
const struct profile *profiles_find(const struct profiles *ps, const char *name);
/* 1 when s is a valid agent or credential name: a lowercase letter or
 * digit, then lowercase letters, digits, '-', '_' or '.', at most
 * PROF_NAME_MAX in all. The one rule, for every program. */
int prof_name_ok(const char *s);
#define PROF_NAME_RULE "a lowercase letter or digit, then lowercase letters, digits, '-', '_' or '.', at most 32"
/* The profile names of ps, ", "-separated, into buf (truncated to n). */
void profiles_names(const struct profiles *ps, char *buf, size_t n);
/* 1 when s is a relative path of plain components (no "", ".", ".."). */
int prof_relpath_ok(const char *s);

/* What a sign-in says. The expiry in seconds since the epoch; the account
 * identity as a NUL-terminated string. buf is the file the field names
 * (the sign-in itself, or field->file). -1 with a reason in err. */
int prof_expiry(const struct prof_field *f, const char *buf, size_t len, int64_t *secs, char *err, size_t errn);
int prof_account(const struct prof_field *f, const char *buf, size_t len, char *out, size_t n, char *err, size_t errn);

/* The token the verification request sends, from the sign-in (a string
 * at v->token, at most PROF_TOKEN_MAX bytes). -1 with a reason in err. */
int prof_token(const struct prof_verify *v, const char *buf, size_t len, char *out, size_t n,
    char *err, size_t errn);

/* A renewal is the stored sign-in (old) with only the verification token
 * and the expiry changed (and an account field of the sign-in itself, when
 * it still names account): every other value, the refresh token above all,
 * the same bytes, the same keys. 0 yes; -1 with the reason in err (the
 * pointer that differs). A refresh token only the agent vouches for would
 * put the user's CLI into another account at its next refresh. */
int prof_renew_whole(const struct profile *p, const char *old, size_t olen, const char *nw, size_t nlen,
    const char *account, char *err, size_t errn);

/* The renewal rule. 0 take it; -1 refuse with the reason in *why. */
int prof_renew_ok(int64_t old_exp, const char *old_acct, int64_t new_exp, const char *new_acct,
    int64_t now, uint64_t max_ahead, const char **why);

#endif
