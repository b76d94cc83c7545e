/* gate: what the allowlists let through beyond tools: resources by URI
 * prefix, prompts by name, completions by what they refer to, tasks by
 * the allowed tools/call that created them; and the listings filtered. */
#include <stdlib.h>
#include <string.h>

#include "proxy_int.h"
#include "toolallow.h"

int
task_known(const struct proxy *p, const char *v, size_t n)
{
	for (int i = 0; i < p->ntask; i++)
		if (strlen(p->task[i]) == n && memcmp(p->task[i], v, n) == 0)
			return 1;
	return 0;
}

void
task_add(struct proxy *p, const char *v, size_t n)
{
	char *d;

	if (task_known(p, v, n) || memchr(v, '\0', n) || (d = dupn(v, n)) == NULL)
		return;
	if (p->ntask == MAX_TASKS) {
		/* the oldest goes: a task that old is long finished */
		free(p->task[0]);
		memmove(p->task, p->task + 1, sizeof p->task[0] * (MAX_TASKS - 1));
		p->ntask--;
	}
	p->task[p->ntask++] = d;
}

static int
keep_name(const char *v, size_t n, const void *ctx)
{
	return allow_has(ctx, v, n);
}

static int
keep_prefix(const char *v, size_t n, const void *ctx)
{
	return allow_prefix(ctx, v, n);
}

static int
keep_task(const char *v, size_t n, const void *ctx)
{
	return task_known(ctx, v, n);
}

const char *
list_empty(enum lkind lk)
{
	switch (lk) {
	case L_RESOURCES: return "{\"resources\":[]}";
	case L_TEMPLATES: return "{\"resourceTemplates\":[]}";
	case L_PROMPTS: return "{\"prompts\":[]}";
	case L_TASKS: return "{\"tasks\":[]}";
	default: return EMPTY_TOOLS;
	}
}

int
list_filter_kind(struct proxy *p, enum lkind lk, const struct rpc_msg *m, const char *id, size_t idn,
    struct buf *out)
{
	const struct proxy_config *cfg = p->cfg;
	size_t kept, dropped;

	switch (lk) {
	case L_RESOURCES:
		return list_filter(m, "resources", "uri", keep_prefix, &cfg->resources, id, idn, out, &kept, &dropped);
	case L_TEMPLATES:
		return list_filter(m, "resourceTemplates", "uriTemplate", keep_prefix, &cfg->resources, id, idn, out,
		    &kept, &dropped);
	case L_PROMPTS:
		return list_filter(m, "prompts", "name", keep_name, &cfg->prompts, id, idn, out, &kept, &dropped);
	case L_TASKS:
		return list_filter(m, "tasks", "taskId", keep_task, p, id, idn, out, &kept, &dropped);
	default:
		return tools_list_filter(m, &cfg->allow, id, idn, out, &kept, &dropped);
	}
}
