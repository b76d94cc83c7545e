/* rules: confine's rule words, from flags and from -f FILE. Pure. */
#ifndef CONFINE_RULES_H
#define CONFINE_RULES_H
#include <stddef.h>
#include "sandbox.h"

#define RULES_MAX_FILE (1024 * 1024)
#define RULES_MAX_LINE 4096

/* Apply one rule word with its argument (NULL when it takes none):
 * r x w W PATH, dev, connect PORT, bind PORT, no-network, no-scope,
 * unix PATH, keep-fd N, refusals FD, mount SRC:DST, mount-ro SRC:DST, filter-ip,
 * loopback PORT, deny-private, no-remote, listeners FD, loopback-from FILE,
 * userns, tty PATH. optional marks r/x/w/W optional.
 * arg is kept by reference. Returns 0, or -1 with a reason in *why
 * (static text). */
int rules_word(struct sb_policy *p, const char *word, const char *arg, int optional,
    const char **why);

/* Parse a rules file: one rule per line, "WORD [ARG]" (ARG is the rest of
 * the line after the blanks that follow WORD), "optional r PATH", blank
 * lines and lines starting with '#' ignored. The policy's strings point into
 * one copy of buf returned in *store (free it when the policy is no longer
 * used; NULL when nothing was allocated). Returns 0, or -1 with *line the
 * 1-based line number and *why the reason. */
int rules_parse(const char *buf, size_t len, struct sb_policy *p, char **store,
    size_t *line, const char **why);

#endif
