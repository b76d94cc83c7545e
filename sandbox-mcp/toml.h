/* toml: drun's config.toml (a TOML subset) as JSON (toml.c). Pure. */
#ifndef SBX_TOML_H
#define SBX_TOML_H
#include <stddef.h>

#include "buf.h"
#include "json.h"

enum { TOML_STR_MAX = 4096, TOML_KEY_MAX = 64, TOML_KEYS_MAX = 64 };

/* buf[0..len) as one JSON object appended to out; -1 with err's line,
 * column and message on anything outside the subset. */
int toml_to_json(const char *buf, size_t len, struct buf *out, struct json_err *err);

#endif
