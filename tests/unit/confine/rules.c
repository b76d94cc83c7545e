/* rules_parse / rules_word: the pure rule parser. */
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "tap.h"

static struct sb_policy p;
static char *store;

static int
parse(const char *s, size_t *line, const char **why)
{
	free(store);
	sb_policy_init(&p);
	return rules_parse(s, strlen(s), &p, &store, line, why);
}

int
main(void)
{
	size_t line = 0;
	const char *why = NULL;

	is_int(parse("", &line, &why), 0, "empty file");
	is_int(p.npath, 0, "... no rules");
	is_int(p.scope, 1, "... scope on by default");
	is_int(p.net, SB_NET_OPEN, "... network open by default");

	is_int(parse("# c\n\n r /etc\nx /usr\nw /w s\nW /all\noptional r /opt/x\n", &line, &why), 0,
	    "paths, comment, blank, leading blank");
	is_int(p.npath, 5, "five paths");
	is_str(p.path[0].path, "/etc", "r path");
	is_int(p.path[0].rights, SB_R, "r right");
	is_int(p.path[1].rights, SB_X, "x right");
	is_str(p.path[2].path, "/w s", "the argument is the rest of the line");
	is_int(p.path[2].rights, SB_W, "w right");
	is_int(p.path[3].rights, SB_WALL, "W right");
	is_int(p.path[4].flags, SB_OPTIONAL, "optional");
	is_int(p.path[0].flags, 0, "not optional by default");

	is_int(parse("connect 443\nbind 8080\nconnect 443\n", &line, &why), 0, "ports");
	is_int(p.net, SB_NET_PORTS, "net ports");
	is_int(p.nconnect, 1, "duplicate port merged");
	is_int(p.connect[0], 443, "connect 443");
	is_int(p.bind[0], 8080, "bind 8080");

	is_int(parse("no-network\nno-scope\ndev\nkeep-fd 9\nunix /run/s.sock\nmount-ro /a:/b\n",
	    &line, &why), 0, "bare words and the rest");
	is_int(p.net, SB_NET_NONE, "no-network");
	is_int(p.scope, 0, "no-scope");
	is_int(p.dev, 1, "dev");
	is_int(p.keep_fd[0], 9, "keep-fd");
	is_str(p.unix_path[0], "/run/s.sock", "unix");
	ok(p.nmount == 1 && strcmp(p.mount[0], "/a:/b") == 0 && p.mount_ro[0], "mount-ro");
	is_int(parse("own-pty\n", &line, &why), 0, "own-pty");
	is_int(p.own, SB_OWN_PTY, "... the broker serves its ptys");
	is_int(parse("own-pty x\n", &line, &why), -1, "own-pty takes no argument");
	is_int(parse("own-unix\nown-pty\n", &line, &why), 0, "own-unix");
	is_int(p.own, SB_OWN_PTY | SB_OWN_UNIX, "... both");
	is_int(parse("own-shm\n", &line, &why), 0, "own-shm");
	is_int(p.own, SB_OWN_SHM, "... its shm objects");
	is_int(parse("own-x\n", &line, &why), -1, "own-x: unknown");
	is_int(parse("mount a:/b\n", &line, &why), -1, "mount: a relative source");
	is_int(parse("mount /a\n", &line, &why), -1, "mount: no destination");
	is_int(parse("mount /a:/b:/c\n", &line, &why), -1, "mount: a third path");

	is_int(parse("loopback 8080\nloopback 8080\ndeny-private\nno-remote\n", &line, &why), 0,
	    "address words");
	is_int(p.ipfilter, 1, "they imply filter-ip");
	is_int(p.nloopback, 1, "duplicate loopback port merged");
	is_int(p.loopback[0], 8080, "loopback 8080");
	is_int(p.deny_private && p.no_remote, 1, "deny-private, no-remote");
	is_int(parse("no-network\nfilter-ip\n", &line, &why), -1, "filter-ip after no-network");
	is_str(why, "address rules conflict with no-network", "... reason");
	is_int(parse("filter-ip\nno-network\n", &line, &why), -1, "no-network after filter-ip");
	is_int(parse("loopback 70000\n", &line, &why), -1, "loopback port out of range");

	is_int(parse("r /a\nread /b\n", &line, &why), -1, "unknown word");
	is_int(line, 2, "... on line 2");
	is_str(why, "unknown word", "... reason");
	is_int(parse("x\n", &line, &why), -1, "missing argument");
	is_str(why, "missing argument", "... reason");
	is_int(parse("dev now\n", &line, &why), -1, "unexpected argument");
	is_int(parse("connect 0\n", &line, &why), -1, "port 0");
	is_int(parse("connect 65536\n", &line, &why), -1, "port 65536");
	is_int(parse("connect -1\n", &line, &why), -1, "port -1");
	is_int(parse("no-network\nconnect 1\n", &line, &why), -1, "no-network then connect");
	is_int(line, 2, "... on line 2");
	is_int(parse("bind 1\nno-network\n", &line, &why), -1, "bind then no-network");
	is_int(parse("keep-fd 2\n", &line, &why), -1, "keep-fd 2");
	is_int(parse("refusals 7\n", &line, &why), 0, "refusals 7");
	is_int(p.refusals_fd, 7, "... the broker's descriptor");
	is_int(p.nkeep, 0, "... not kept for the program");
	is_int(parse("refusals 2\n", &line, &why), -1, "refusals 2");
	is_int(parse("keep-fd 7\nrefusals 7\n", &line, &why), -1, "keep-fd 7 then refusals 7");
	is_int(parse("refusals 7\nkeep-fd 7\n", &line, &why), -1, "refusals 7 then keep-fd 7");
	is_int(parse("unix rel.sock\n", &line, &why), -1, "relative unix path");
	is_int(parse("optional connect 1\n", &line, &why), -1, "optional on a non-path word");
	is_int(parse("optional\n", &line, &why), -1, "optional alone");
	is_int(parse("r /a\0b\n", &line, &why), 0, "strlen stops at NUL (harness)");
	free(store);
	sb_policy_init(&p);
	is_int(rules_parse("r /a\n\nr /a\0b\n", 12, &p, &store, &line, &why), -1, "NUL inside a line");
	is_int(line, 3, "... on line 3");
	{
		static char big[RULES_MAX_LINE + 10];
		memset(big, 'a', sizeof big - 1);
		is_int(parse(big, &line, &why), -1, "line too long");
		is_str(why, "line too long", "... reason");
	}
	free(store);
	return done_testing();
}
