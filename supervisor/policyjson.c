/* policyjson: a parsed policy written back as a policy file (corral policy
 * check prints the file merged over the default: what a run gets). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "policy.h"

static void
q(FILE *f, const char *s)
{
	char b[PATH_MAX * 6 + 3];

	if (s == NULL || json_quote(s, strlen(s), b, sizeof b) < 0)
		fputs("null", f);
	else
		fputs(b, f);
}

/* a JSON array of l's strings, after lead's (a JSON string) when not NULL */
static void
strs_after(FILE *f, const char *lead, const struct strlist *l)
{
	fputc('[', f);
	if (lead)
		fputs(lead, f);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i || lead ? ", " : "", f);
		q(f, l->v[i]);
	}
	fputc(']', f);
}

static void
strs(FILE *f, const struct strlist *l)
{
	strs_after(f, NULL, l);
}

/* A list that adds to a default that is not empty (exec, git_deps), written
 * so that the file printed reads back as the same policy: over the default,
 * entries only add, so a list that lacks one of the default's begins with
 * "-*" (none of the default's), and an empty one is just that. */
static void
merged(FILE *f, const struct strlist *l, const struct strlist *def)
{
	size_t i, j;

	for (i = 0; i < def->n; i++) {
		for (j = 0; j < l->n && strcmp(l->v[j], def->v[i]) != 0; j++)
			;
		if (j == l->n)
			break;
	}
	strs_after(f, i == def->n ? NULL : "\"-*\"", l);
}

static void
ports(FILE *f, const struct portlist *l)
{
	fputc('[', f);
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%s%u", i ? ", " : "", (unsigned)l->v[i]);
	fputc(']', f);
}

/* "NAME=VALUE" entries as {"NAME": "VALUE"} */
static void
pairs(FILE *f, const struct strlist *l)
{
	char name[256];

	fputc('{', f);
	for (size_t i = 0; i < l->n; i++) {
		const char *eq = strchr(l->v[i], '=');
		size_t n = eq ? (size_t)(eq - l->v[i]) : 0;
		snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), l->v[i]);
		fputs(i ? ", " : "", f);
		q(f, name);
		fputs(": ", f);
		q(f, eq ? eq + 1 : "");
	}
	fputc('}', f);
}

static void
network(FILE *f, const struct policy *p)
{
	static const char *const mode[] = { [NET_OPEN] = "open", [NET_NONE] = "none",
		[NET_PORTS] = "ports", [NET_ALLOW] = "allow", [NET_UNFILTERED] = "open-unfiltered" };
	const char *sep = "";

	if ((p->net == NET_OPEN || p->net == NET_NONE || p->net == NET_UNFILTERED) &&
	    !p->deny_private && p->allow_loopback.n == 0) {
		fprintf(f, "\"%s\"", mode[p->net]);
		return;
	}
	fputc('{', f);
	if (p->net == NET_PORTS) {
		fputs("\"connect\": ", f);
		ports(f, &p->connect);
		if (p->bind.n) {
			fputs(", \"bind\": ", f);
			ports(f, &p->bind);
		}
		sep = ", ";
	} else if (p->net == NET_ALLOW) {
		fputs("\"allow\": ", f);
		strs(f, &p->allow);
		sep = ", ";
	} else if (p->net != NET_OPEN) {
		fprintf(f, "\"mode\": \"%s\"", mode[p->net]);
		sep = ", ";
	}
	if (p->deny_private) {
		fprintf(f, "%s\"deny_private\": true", sep);
		sep = ", ";
	}
	if (p->allow_loopback.n) {
		fprintf(f, "%s\"allow_loopback\": ", sep);
		ports(f, &p->allow_loopback);
	}
	fputc('}', f);
}

static void
mcp(FILE *f, const struct policy *p)
{
	fputc('{', f);
	for (size_t i = 0; i < p->nmcp; i++) {
		const struct mcp_server *s = &p->mcp[i];
		if (s->browser)
			continue;	/* "browser" says it */
		fprintf(f, "%s\n    ", i ? "," : "");
		q(f, s->name);
		if (s->url) {
			fputs(": {\"url\": ", f);
			q(f, s->url);
		} else {
			fputs(": {\"command\": ", f);
			strs(f, &s->command);
		}
		fputs(", \"tools\": ", f);
		strs(f, &s->tools);
		if (s->credential_file) {
			fputs(", \"credential_file\": ", f);
			q(f, s->credential_file);
		}
		if (s->env_keep.n) {
			fputs(", \"env_keep\": ", f);
			strs(f, &s->env_keep);
		}
		if (s->resources.n) {
			fputs(", \"resources\": ", f);
			strs(f, &s->resources);
		}
		if (s->prompts.n) {
			fputs(", \"prompts\": ", f);
			strs(f, &s->prompts);
		}
		fputc('}', f);
	}
	fputs(p->nmcp ? "\n  }" : "}", f);
}

void
policy_print(FILE *f, const struct policy *p)
{
	static const char *const git[] = { [GIT_WORKTREE] = "worktree", [GIT_INPLACE] = "in-place",
		[GIT_OFF] = "off" };
	struct policy def;
	struct json_err err;
	const char *sep = "";

	if (policy_default(&def, &err) < 0)
		policy_init(&def);	/* a bug; nothing then looks taken away */
	fputs("{\n  \"version\": 1,\n  \"workspace\": ", f);
	q(f, p->workspace ? p->workspace : ".");
	fprintf(f, ",\n  \"git\": \"%s\",\n  \"git_deps\": ", git[p->git]);
	merged(f, &p->git_deps, &def.git_deps);
	fputs(",\n  \"read\": ", f);
	strs(f, &p->read);
	fputs(",\n  \"exec\": ", f);
	merged(f, &p->exec, &def.exec);
	fprintf(f, ",\n  \"path_exec\": %s,\n  \"write\": ", p->path_exec ? "true" : "false");
	strs(f, &p->write);
	fprintf(f, ",\n  \"devices\": %s,\n  \"proc\": %s,\n  \"network\": ",
	    p->devices ? "true" : "false", p->proc ? "true" : "false");
	network(f, p);
	fprintf(f, ",\n  \"scope\": %s,\n  \"userns\": %s,\n  \"env\": {\"keep\": ",
	    p->scope ? "true" : "false", p->userns ? "true" : "false");
	strs(f, &p->env_keep);
	fputs(", \"set\": ", f);
	pairs(f, &p->env_set);
	fputs(", \"files\": ", f);
	strs(f, &p->env_files);
	if (p->env_project) {
		fputs(", \"project\": ", f);
		q(f, p->env_project);
	}
	fputs("},\n  \"agent\": ", f);
	q(f, p->agent);
	fprintf(f, ",\n  \"full_setup\": %s,\n  \"minimum_tier\": ", p->full_setup ? "true" : "false");
	q(f, p->min_tier);
	fputs(",\n  \"mcp\": ", f);
	mcp(f, p);
	if (p->browser.on) {
		fputs(",\n  \"browser\": {\"tools\": ", f);
		strs(f, &p->browser.tools);
		if (p->browser.package) {
			fputs(", \"package\": ", f);
			q(f, p->browser.package);
		}
		fputc('}', f);
	}
	for (int i = 0; i < LIM_N; i++) {
		if (p->limits.v[i] == 0)
			continue;
		fprintf(f, "%s\"%s\": %llu", *sep ? ", " : ",\n  \"limits\": {", limits_keys[i],
		    (unsigned long long)p->limits.v[i]);
		sep = "}";
	}
	fprintf(f, "%s\n}\n", sep);
	policy_free(&def);
}
