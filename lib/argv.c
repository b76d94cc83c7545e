#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

/* Append c, which a now owns (freed when it cannot be appended). */
static void
take(struct argv *a, char *c)
{
	char **v;

	if (a->err || c == NULL) {
		if (!a->err)
			a->err = ENOMEM;
		free(c);
		return;
	}
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		if ((v = realloc(a->v, cap * sizeof *v)) == NULL) {
			a->err = ENOMEM;
			free(c);
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = c;
	a->v[a->n] = NULL;
}

void
av_push(struct argv *a, const char *s)
{
	if (a->err)
		return;
	take(a, strdup(s));
}

void
av_pushcat(struct argv *a, ...)
{
	va_list ap;
	const char *s;
	size_t n = 0, o = 0;
	char *c;

	if (a->err)
		return;
	va_start(ap, a);
	while ((s = va_arg(ap, const char *)) != NULL)
		n += strlen(s);
	va_end(ap);
	if (n >= AV_PUSHF_MAX) {
		a->err = ENAMETOOLONG;	/* as av_pushf */
		return;
	}
	if ((c = malloc(n + 1)) != NULL) {
		va_start(ap, a);
		while ((s = va_arg(ap, const char *)) != NULL) {
			size_t l = strlen(s);
			memcpy(c + o, s, l);
			o += l;
		}
		va_end(ap);
		c[o] = '\0';
	}
	take(a, c);
}

void
av_pushf(struct argv *a, const char *fmt, ...)
{
	char buf[AV_PUSHF_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf) {
		a->err = ENAMETOOLONG;
		return;
	}
	av_push(a, buf);
}

void
av_pushv(struct argv *a, char *const *v)
{
	for (; v && *v; v++)
		av_push(a, *v);
}

void
av_free(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

static int
safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    strchr("_@%+=:,./-", c) != NULL;
}

int
sh_quote(const char *s, int vars, char *out, size_t cap)
{
	size_t o = 0;
	int inq = 0, bare = *s != '\0';
	const char *p;

#define PUT(c) do { if (o + 1 >= cap) return -1; out[o++] = (c); } while (0)
	for (p = s; *p; p++)
		if (!safe((unsigned char)*p))
			bare = 0;
	if (bare) {
		for (p = s; *p; p++)
			PUT(*p);
		out[o] = '\0';
		return (int)o;
	}
	if (*s == '\0') {
		PUT('\'');
		PUT('\'');
	}
	for (p = s; *p; p++) {
		if (vars && *p == '\001') {
			const char *e = strchr(p, '\002');
			if (e) {
				if (inq)
					{ PUT('\''); inq = 0; }
				PUT('"');
				PUT('$');
				for (p++; p < e; p++)
					PUT(*p);
				PUT('"');
				p = e;
				continue;
			}
		}
		if (*p == '\'') {
			if (inq)
				{ PUT('\''); inq = 0; }
			PUT('\\');
			PUT('\'');
			continue;
		}
		if (!inq)
			{ PUT('\''); inq = 1; }
		PUT(*p);
	}
	if (inq)
		PUT('\'');
	out[o] = '\0';
	return (int)o;
#undef PUT
}

const char *
av_verb(int *argc, char ***argv)
{
	char **v = *argv;
	const char *verb;

	if (*argc < 2 || v[1][0] == '-')
		return NULL;
	verb = v[1];
	v[1] = v[0];
	*argv = v + 1;
	(*argc)--;
	return verb;
}
