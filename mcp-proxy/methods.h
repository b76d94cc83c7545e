/*
 * methods: what a client's message asks for, by its method name compared
 * after JSON unescaping ("tools\/call" is tools/call; a name with an
 * embedded NUL or over METHOD_MAX is no known method). Pure: no I/O.
 * Every method not listed is refused, and every notification not listed
 * is dropped: the upstream runs outside the boundary, and one that
 * dispatches on "method" alone would act on anything forwarded.
 */
#ifndef MCP_METHODS_H
#define MCP_METHODS_H
#include <stddef.h>
#include "rpc.h"

enum { METHOD_MAX = 127 };

enum method {
	M_UNKNOWN,
	M_INITIALIZE, M_DISCOVER, M_PING, M_SET_LEVEL,
	M_TOOLS_LIST, M_TOOLS_CALL,
	M_RESOURCES_LIST, M_RESOURCE_TEMPLATES_LIST, M_RESOURCES_READ,
	M_RESOURCES_SUBSCRIBE, M_RESOURCES_UNSUBSCRIBE,
	M_PROMPTS_LIST, M_PROMPTS_GET, M_COMPLETE,
	M_TASKS_GET, M_TASKS_LIST, M_TASKS_RESULT, M_TASKS_CANCEL,
	/* notifications a client may send */
	N_INITIALIZED, N_CANCELLED, N_PROGRESS, N_ROOTS_LIST_CHANGED,
};

/* The method of request or notification m, and its name unescaped into
 * name (cap bytes; "" when it cannot be had), for the audit log. A
 * notification's method is one of the N_* or M_UNKNOWN; a request's one
 * of the M_*. */
enum method method_of(const struct rpc_msg *m, char *name, size_t cap);
/* 1 when the method is in tools/, resources/, prompts/, completion/ or
 * tasks/ but not listed above (refused as not found, never forwarded). */
int method_family_known(const char *name);

#endif
