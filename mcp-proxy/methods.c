#include <string.h>

#include "methods.h"

static const struct {
	const char *name;
	enum method m;
	int notify;
} table[] = {
	{ "initialize", M_INITIALIZE, 0 },
	{ "server/discover", M_DISCOVER, 0 },
	{ "ping", M_PING, 0 },
	{ "logging/setLevel", M_SET_LEVEL, 0 },
	{ "tools/list", M_TOOLS_LIST, 0 },
	{ "tools/call", M_TOOLS_CALL, 0 },
	{ "resources/list", M_RESOURCES_LIST, 0 },
	{ "resources/templates/list", M_RESOURCE_TEMPLATES_LIST, 0 },
	{ "resources/read", M_RESOURCES_READ, 0 },
	{ "resources/subscribe", M_RESOURCES_SUBSCRIBE, 0 },
	{ "resources/unsubscribe", M_RESOURCES_UNSUBSCRIBE, 0 },
	{ "prompts/list", M_PROMPTS_LIST, 0 },
	{ "prompts/get", M_PROMPTS_GET, 0 },
	{ "completion/complete", M_COMPLETE, 0 },
	{ "tasks/get", M_TASKS_GET, 0 },
	{ "tasks/list", M_TASKS_LIST, 0 },
	{ "tasks/result", M_TASKS_RESULT, 0 },
	{ "tasks/cancel", M_TASKS_CANCEL, 0 },
	{ "notifications/initialized", N_INITIALIZED, 1 },
	{ "notifications/cancelled", N_CANCELLED, 1 },
	{ "notifications/progress", N_PROGRESS, 1 },
	{ "notifications/roots/list_changed", N_ROOTS_LIST_CHANGED, 1 },
};

enum method
method_of(const struct rpc_msg *m, char *name, size_t cap)
{
	char buf[METHOD_MAX + 1];
	int n;

	if (cap)
		name[0] = '\0';
	if (m->method < 0)
		return M_UNKNOWN;
	n = json_str(m->js, &m->t[m->method], buf, sizeof buf);
	if (n <= 0 || memchr(buf, '\0', (size_t)n))
		return M_UNKNOWN;	/* too long, or a NUL that would cut the name short */
	if (cap) {
		strncpy(name, buf, cap - 1);
		name[cap - 1] = '\0';
	}
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].notify == (m->kind == RPC_NOTIFY) && strcmp(table[i].name, buf) == 0)
			return table[i].m;
	return M_UNKNOWN;
}

int
method_family_known(const char *name)
{
	static const char *fam[] = { "tools/", "resources/", "prompts/", "completion/", "tasks/" };

	for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
		if (strncmp(name, fam[i], strlen(fam[i])) == 0)
			return 1;
	return 0;
}
