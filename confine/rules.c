/* rules: see rules.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "rules.h"

static int
known(const char *w)
{
	static const char *const a[] = { "r", "x", "w", "W", "connect", "bind", "unix",
		"keep-fd", "refusals", "mount", "mount-ro", "dev", "no-network", "no-scope",
		"filter-ip", "loopback", "deny-private", "no-remote", "userns", "tty", "own-pty", "own-unix",
		"own-shm", "no-symlinks", "listeners", "loopback-from", "unix-bind", "ctty", NULL };
	size_t i;

	for (i = 0; a[i]; i++)
		if (strcmp(w, a[i]) == 0)
			return 1;
	return 0;
}

static int
takes_arg(const char *w)
{
	static const char *const a[] = { "r", "x", "w", "W", "connect", "bind", "unix",
		"keep-fd", "refusals", "mount", "mount-ro", "loopback", "tty", "listeners",
		"loopback-from", "unix-bind", NULL };
	size_t i;

	for (i = 0; a[i]; i++)
		if (strcmp(w, a[i]) == 0)
			return 1;
	return 0;
}

/* The address rules (the IP broker): each implies filter-ip. */
static int
ip_word(struct sb_policy *p, const char *word, const char *arg, const char **why)
{
	int n;
	size_t i;

	if (p->net == SB_NET_NONE) {
		*why = "address rules conflict with no-network";
		return -1;
	}
	p->ipfilter = 1;
	if (word[0] == 'd')
		p->deny_private = 1;
	else if (word[0] == 'n')
		p->no_remote = 1;
	else if (strcmp(word, "loopback-from") == 0) {
		if (arg[0] != '/') {
			*why = "the listeners file must be an absolute path";
			return -1;
		}
		p->loopback_from = arg;
	} else if (word[0] == 'l') {
		if (num_parse_int(arg, 1, 65535, &n) != 0) {
			*why = "port must be a number from 1 to 65535";
			return -1;
		}
		for (i = 0; i < p->nloopback; i++)
			if (p->loopback[i] == n)
				return 0;
		if (p->nloopback >= SB_MAX_LOOPBACK) {
			*why = "too many loopback rules";
			return -1;
		}
		p->loopback[p->nloopback++] = (uint16_t)n;
	}
	return 0;
}

/* keep-fd N (a descriptor the program keeps), refusals N and listeners N
 * (the broker's, never the program's): none may name another's */
static int
fd_word(struct sb_policy *p, const char *word, const char *arg, const char **why)
{
	int n, keep = strcmp(word, "keep-fd") == 0;

	if (num_parse_fd(arg, &n) != 0 || n < 3) {
		*why = keep ? "descriptor must be a number from 3 to 1048576 (0-2 are always kept)" :
		    "descriptor must be a number from 3 to 1048576";
		return -1;
	}
	if (n == p->refusals_fd || n == p->listeners_fd) {
		*why = n == p->refusals_fd ? "that descriptor is the refusals descriptor: only the broker keeps it" :
		    "that descriptor is the listeners descriptor: only the broker keeps it";
		return -1;
	}
	if (!keep) {
		for (size_t k = 0; k < p->nkeep; k++)
			if (p->keep_fd[k] == n) {
				*why = "that descriptor is kept for the program (keep-fd): the agent would hold it";
				return -1;
			}
		*(word[0] == 'r' ? &p->refusals_fd : &p->listeners_fd) = n;
		return 0;
	}
	if (p->nkeep >= SB_MAX_KEEPFD) {
		*why = "too many keep-fd rules";
		return -1;
	}
	p->keep_fd[p->nkeep++] = n;
	return 0;
}

int
rules_word(struct sb_policy *p, const char *word, const char *arg, int optional,
    const char **why)
{
	unsigned rights = 0;
	int n;

	if (strcmp(word, "r") == 0)
		rights = SB_R;
	else if (strcmp(word, "x") == 0)
		rights = SB_X;
	else if (strcmp(word, "w") == 0)
		rights = SB_W;
	else if (strcmp(word, "W") == 0)
		rights = SB_WALL;
	if (!known(word)) {
		*why = "unknown word";
		return -1;
	}
	if (takes_arg(word) && (arg == NULL || *arg == '\0')) {
		*why = "missing argument";
		return -1;
	}
	if (!takes_arg(word) && arg != NULL) {
		*why = "unexpected argument";
		return -1;
	}
	if (optional && rights == 0) {
		*why = "optional applies to r, x, w, W only";
		return -1;
	}
	if (rights != 0) {
		if (sb_policy_add_path(p, arg, rights, optional ? SB_OPTIONAL : 0) != 0) {
			*why = errno == E2BIG ? "too many path rules" : "invalid path rule";
			return -1;
		}
		return 0;
	}
	if (strcmp(word, "connect") == 0 || strcmp(word, "bind") == 0) {
		if (num_parse_int(arg, 1, 65535, &n) != 0) {
			*why = "port must be a number from 1 to 65535";
			return -1;
		}
		if (p->net == SB_NET_NONE) {
			*why = "port rules conflict with no-network";
			return -1;
		}
		if ((word[0] == 'c' ? sb_policy_add_connect(p, (uint16_t)n)
		    : sb_policy_add_bind(p, (uint16_t)n)) != 0) {
			*why = "too many port rules";
			return -1;
		}
		return 0;
	}
	if (strcmp(word, "filter-ip") == 0 || strcmp(word, "loopback") == 0 ||
	    strcmp(word, "deny-private") == 0 || strcmp(word, "no-remote") == 0 ||
	    strcmp(word, "loopback-from") == 0)
		return ip_word(p, word, arg, why);
	if (strcmp(word, "no-network") == 0) {
		if (p->net == SB_NET_PORTS) {
			*why = "no-network conflicts with port rules";
			return -1;
		}
		if (p->ipfilter) {
			*why = "no-network conflicts with address rules";
			return -1;
		}
		p->net = SB_NET_NONE;
		return 0;
	}
	if (strcmp(word, "no-scope") == 0) {
		p->scope = 0;
		return 0;
	}
	if (strcmp(word, "dev") == 0) {
		p->dev = 1;
		return 0;
	}
	if (strncmp(word, "own-", 4) == 0) {
		p->own |= word[4] == 'p' ? SB_OWN_PTY : word[4] == 'u' ? SB_OWN_UNIX : SB_OWN_SHM;
		return 0;
	}
	if (strcmp(word, "userns") == 0) {
		p->userns = 1;
		return 0;
	}
	if (strcmp(word, "no-symlinks") == 0) {
		p->nolinks = 1;
		return 0;
	}
	if (strcmp(word, "tty") == 0) {
		if (arg[0] != '/') {
			*why = "terminal path must be absolute";
			return -1;
		}
		if (p->tty != NULL || p->ctty) {
			*why = "only one tty rule";
			return -1;
		}
		p->tty = arg;
		return 0;
	}
	if (strcmp(word, "ctty") == 0) {
		if (p->tty != NULL) {
			*why = "only one tty rule";
			return -1;
		}
		p->ctty = 1;
		return 0;
	}
	if (strcmp(word, "unix") == 0 || strcmp(word, "unix-bind") == 0) {
		int bind = word[4] == '-';
		if (arg[0] != '/') {
			*why = "unix socket path must be absolute";
			return -1;
		}
		if (strlen(arg) >= 108) {
			*why = "unix socket path too long";
			return -1;
		}
		if ((bind ? p->nunix_bind : p->nunix) >= SB_MAX_UNIX) {
			*why = "too many unix rules";
			return -1;
		}
		if (bind) {
			/* the broker makes it, and knows it for its own */
			p->unix_bind[p->nunix_bind++] = arg;
			p->own |= SB_OWN_UNIX;
		} else {
			p->unix_path[p->nunix++] = arg;
		}
		return 0;
	}
	if (strcmp(word, "keep-fd") == 0 || strcmp(word, "refusals") == 0 ||
	    strcmp(word, "listeners") == 0)
		return fd_word(p, word, arg, why);
	if (strcmp(word, "mount") == 0 || strcmp(word, "mount-ro") == 0) {
		const char *c = strchr(arg, ':');
		if (arg[0] != '/' || c == NULL || c[1] != '/' || strchr(c + 1, ':') != NULL) {
			*why = "want SRC:DST, both absolute, no other ':'";
			return -1;
		}
		if (p->nmount >= SB_MAX_MOUNT) {
			*why = "too many mount rules";
			return -1;
		}
		p->mount_ro[p->nmount] = word[5] == '-';
		p->mount[p->nmount++] = arg;
		return 0;
	}
	*why = "unknown word";
	return -1;
}

int
rules_parse(const char *buf, size_t len, struct sb_policy *p, char **store, size_t *line,
    const char **why)
{
	size_t pos = 0, end, ln = 0;
	char *b, *s, *lend, *w, *a;
	int optional;

	*store = NULL;
	*line = 0;
	if (len > RULES_MAX_FILE) {
		*why = "file too large";
		return -1;
	}
	if (memchr(buf, '\0', len) != NULL) {
		/* report the line of the first NUL */
		const char *z = memchr(buf, '\0', len);
		for (pos = 0; pos < (size_t)(z - buf); pos++)
			if (buf[pos] == '\n')
				ln++;
		*line = ln + 1;
		*why = "NUL byte in line";
		return -1;
	}
	/* One copy, cut in place: every string of the policy points into it. */
	b = malloc(len + 1);
	if (b == NULL) {
		*why = "out of memory";
		return -1;
	}
	memcpy(b, buf, len);
	b[len] = '\0';
	*store = b;
	pos = 0;
	while (pos < len) {
		s = b + pos;
		end = pos;
		while (end < len && b[end] != '\n')
			end++;
		*line = ++ln;
		if (end - pos > RULES_MAX_LINE) {
			*why = "line too long";
			return -1;
		}
		b[end] = '\0';
		lend = b + end;
		pos = end + 1;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		optional = 0;
		for (;;) {
			w = s;
			while (*s != '\0' && *s != ' ' && *s != '\t')
				s++;
			a = s;
			while (*s == ' ' || *s == '\t')
				s++;
			*a = '\0';
			if (!optional && strcmp(w, "optional") == 0) {
				optional = 1;
				if (*s == '\0') {
					*why = "optional needs a rule";
					return -1;
				}
				continue;
			}
			break;
		}
		if (rules_word(p, w, s < lend && *s != '\0' ? s : NULL, optional, why) != 0)
			return -1;
	}
	return 0;
}
