/* sandbox-mcp's configuration is written by an operator, and a typo must
 * fail closed: any bytes give either a configuration or an error with a
 * message (and a position inside the input), never a crash. What parses
 * prints (get_config) as JSON that parses again to the same thing. The
 * workspace path check is pure too: what it accepts is relative, has no
 * ".", ".." or empty component and no control character. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "wspath.h"

static void
roundtrip(const struct config *c)
{
	struct config c2;
	struct json_err e;
	char *j = config_json(c), *j2;

	if (j == NULL)
		abort();
	config_defaults(&c2);
	if (config_parse(j, strlen(j), &c2, &e) < 0)
		abort();	/* what get_config prints must be a valid configuration */
	if ((j2 = config_json(&c2)) == NULL || strcmp(j, j2) != 0)
		abort();
	free(j);
	free(j2);
	config_free(&c2);
}

static void
path_check(const uint8_t *data, size_t size)
{
	char p[WS_PATH_MAX + 2], err[256];
	size_t n = size < sizeof p - 1 ? size : sizeof p - 1;

	memcpy(p, data, n);
	p[n] = '\0';
	if (ws_path_check(p, err, sizeof err) < 0) {
		if (err[0] == '\0')
			abort();
		return;
	}
	n = strlen(p);
	if (n == 0 || n > WS_PATH_MAX || p[0] == '/' || p[n - 1] == '/' || strstr(p, "//"))
		abort();
	for (const char *c = p; *c; c += strcspn(c, "/"), c += *c == '/') {
		size_t l = strcspn(c, "/");
		if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			abort();
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	struct json_err e;

	config_defaults(&c);
	if (config_parse((const char *)data, size, &c, &e) == 0) {
		roundtrip(&c);
	} else {
		if (e.msg[0] == '\0' || e.line < 0 || e.col < 0 || (e.line == 0) != (e.col == 0))
			abort();
		if ((size_t)e.line > size + 1)
			abort();	/* the position lies inside the input */
	}
	config_free(&c);
	path_check(data, size);
	return 0;
}
