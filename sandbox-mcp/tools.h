/* tools: the tool table (drun's names and arguments) and tools/list. */
#ifndef SBX_TOOLS_H
#define SBX_TOOLS_H
#include "sbx.h"

struct tool {
	const char *name, *description, *schema;	/* schema: the inputSchema's properties */
	const char *required;				/* a JSON array */
	tool_fn *fn;
};

extern const struct tool tools[];
const struct tool *tool_find(const char *name);
/* 1 when tool t takes the argument named by string token key of js (its
 * raw bytes, compared with the schema's property names), else 0. */
int tool_takes(const struct tool *t, const char *js, const jsmntok_t *key);
/* The tools/list result, built once. */
const char *tools_list_json(void);

#endif
