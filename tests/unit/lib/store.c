#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdio.h"
#include "rmtree.h"
#include "store.h"
#include "tap.h"

int
main(void)
{
	struct attempt a, b;
	struct credhdr h, h2;
	char buf[4096], id[40], tmpl[] = "/tmp/corral-unit-XXXXXX", p[512];
	size_t off;
	int n, fd, i, r;

	ok(store_id_ok("0123456789abcdef0123456789abcdef"), "id ok");
	ok(!store_id_ok("0123456789ABCDEF0123456789abcdef"), "uppercase id refused");
	ok(!store_id_ok("0123456789abcdef0123456789abcde"), "short id refused");
	ok(store_label_ok("landlock-7") && !store_label_ok("a b") && !store_label_ok(""), "labels");

	ok(store_tree_name_ok("a0123456789", 11), "tree name: 'a' and 10 hex digits");
	ok(store_tree_name_ok("a0123456789/home", 11), "tree name: the length given, not the string's");
	ok(!store_tree_name_ok("a012345678", 10), "tree name: 9 digits refused");
	ok(store_tree_rest("/s", "/s/a0123456789") != NULL && *store_tree_rest("/s", "/s/a0123456789") == '\0',
	    "tree rest: the tree itself");
	ok(store_tree_rest("/s", "/s/a0123456789/home/x") != NULL &&
	    strcmp(store_tree_rest("/s", "/s/a0123456789/home/x"), "/home/x") == 0, "tree rest: beneath it");
	ok(store_tree_rest("/s", "/s2/a0123456789") == NULL, "tree rest: another directory's prefix is not it");
	ok(store_tree_rest("/s", "/s/git/a0123456789") == NULL, "tree rest: deeper is not a tree");
	ok(store_tree_rest("/s", "/s/a012345678") == NULL, "tree rest: not a tree's name");
	ok(store_tree_rest("", "/a0123456789") == NULL, "tree rest: no directory");
	ok(!store_tree_name_ok("a01234567890", 12), "tree name: 11 digits refused");
	ok(!store_tree_name_ok("a012345678A", 11) && !store_tree_name_ok("b0123456789", 11), "tree name: uppercase, other prefix refused");
	ok(!store_tree_name_ok("attempts", 8) && !store_tree_name_ok("a012345678/", 11), "tree name: the store's attempts/, a slash refused");
	/* 1 + 10 + /home + codex's 50: the store may be 40 bytes */
	ok(STORE_PATH_SOCKET_MAX + 1 + 1 + STORE_TREE_NONCE_LEN + 5 +
	    (int)strlen("/.codex/app-server-control/app-server-control.sock") == 107,
	    "a 40-byte store leaves codex's socket path 107 bytes");

	memset(&a, 0, sizeof a);
	strcpy(a.id, "0123456789abcdef0123456789abcdef");
	strcpy(a.agent, "codex");
	a.pid = 42; a.pid_start = 777; a.start = 1700000000;
	n = attempt_format(&a, buf, sizeof buf);
	ok(n > 0 && buf[n - 1] == '\n', "record formats, newline-terminated");
	ok(attempt_parse(buf, (size_t)n, &b) == 0 && !b.ended && b.pid == 42 && b.pid_start == 777 &&
	    b.start == 1700000000 && strcmp(b.agent, "codex") == 0, "running record round-trips");
	a.ended = 1; a.end = 1700000100; a.status = 130;
	strcpy(a.platform, "linux"); strcpy(a.tier, "t2");
	n = attempt_format(&a, buf, sizeof buf);
	ok(attempt_parse(buf, (size_t)n, &b) == 0 && b.ended && b.end == 1700000100 && b.status == 130 &&
	    strcmp(b.tier, "t2") == 0, "ended record round-trips");
	ok(attempt_format(&a, buf, 20) < 0 && errno == ENOSPC, "small buffer: ENOSPC");
	ok(attempt_parse(buf, (size_t)n - 3, &b) < 0, "torn record refused");
	ok(attempt_parse("{\"id\":\"x\"}", 10, &b) < 0, "incomplete record refused");
	n = snprintf(buf, sizeof buf, "{\"id\":\"0123456789abcdef0123456789abcdef\",\"agent\":\"c\",\"pid\":1,"
	    "\"pid_start\":1,\"start\":1,\"end\":5,\"status\":300,\"platform\":\"\",\"tier\":\"\"}");
	ok(attempt_parse(buf, (size_t)n, &b) < 0, "status out of range refused");

	memset(&h, 0, sizeof h);
	strcpy(h.agent, "claude");
	strcpy(h.account, "u-\"1\"\n");
	n = cred_header_format(&h, buf, sizeof buf);
	ok(n > 0 && memchr(buf, '\n', (size_t)n) == buf + n - 1, "header is one line even with a newline in the account");
	memcpy(buf + n, "SECRET", 6);
	ok(cred_split(buf, (size_t)n + 6, &h2, &off) == 0 && off == (size_t)n && strcmp(h2.account, h.account) == 0,
	    "header splits off the secret");
	ok(cred_split("SECRET", 6, &h2, &off) < 0, "no header refused");
	ok(cred_split("{\"v\":2,\"agent\":\"\",\"account\":\"\"}\nS", 33, &h2, &off) < 0, "unknown version refused");
	ok(cred_split("{\"v\":1,\"agent\":\"claude\",\"account\":\"\"}\nS", 39, &h2, &off) < 0, "agent without account refused");
	h.since = 1700000000;
	h.renewed = 1700000600;
	n = cred_header_format(&h, buf, sizeof buf);
	ok(n > 0 && cred_split(buf, (size_t)n, &h2, &off) == 0 && h2.since == 1700000000 && h2.renewed == 1700000600,
	    "since and renewed round-trip");
	ok(cred_split("{\"v\":1,\"agent\":\"claude\",\"account\":\"u\"}\nS", 40, &h2, &off) == 0 && h2.since == 0 &&
	    h2.renewed == 0, "an older header without since and renewed reads as unknown");
	ok(cred_split("{\"v\":1,\"agent\":\"claude\",\"account\":\"u\",\"since\":-1}\nS", 51, &h2, &off) < 0,
	    "a negative since refused");

	/* rmtree: symlinks unlinked, never followed */
	ok(mkdtemp(tmpl) != NULL, "temp dir");
	snprintf(p, sizeof p, "%s/out", tmpl); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/out/keep", tmpl); close(open(p, O_CREAT | O_WRONLY, 0600));
	snprintf(p, sizeof p, "%s/t", tmpl); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/t/a", tmpl); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/t/a/l", tmpl); symlink("../../out", p);
	snprintf(p, sizeof p, "%s/t/a/f", tmpl); close(open(p, O_CREAT | O_WRONLY, 0600));
	snprintf(p, sizeof p, "%s/t/a/fifo", tmpl); mkfifo(p, 0600);
	fd = open(tmpl, O_RDONLY | O_DIRECTORY);
	ok(rmtree_at(fd, "t") == 0, "rmtree_at succeeds");
	ok(faccessat(fd, "t", F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT, "tree gone");
	ok(faccessat(fd, "out/keep", F_OK, 0) == 0, "symlink target untouched");
	ok(rmtree_at(fd, "t") == 0, "absent name is success");
	snprintf(p, sizeof p, "%s/sl", tmpl); symlink("out", p);
	ok(rmtree_at(fd, "sl") == 0 && faccessat(fd, "out/keep", F_OK, 0) == 0, "a top-level symlink is unlinked, not followed");
	snprintf(p, sizeof p, "%s/deep", tmpl); mkdir(p, 0700);
	for (i = 0; i < 1000; i++) {
		size_t l = strlen(p);
		if (l + 3 >= sizeof p) break;
		strcat(p, "/d");
		if (mkdir(p, 0700) < 0) break;
	}
	ok(i > 200, "deep tree built (%d levels)", i);
	ok(rmtree_at(fd, "deep") == 0, "deep tree removed");
	/* empty directories go by one rmdir each (an attempt's tmp, config),
	 * unreadable ones too; one with entries is walked; a symbolic link
	 * to a directory is unlinked, its target kept */
	ok(mkdirat(fd, "e", 0700) == 0 && mkdirat(fd, "e/tmp", 0700) == 0 && mkdirat(fd, "e/config", 0000) == 0 &&
	    mkdirat(fd, "e/home", 0700) == 0 && mkdirat(fd, "e/home/.cache", 0700) == 0 &&
	    mkdirat(fd, "e/home/.cache/a", 0700) == 0 && mkdirat(fd, "e/home/.cache/a/b", 0500) == 0 &&
	    mkdirat(fd, "e/shut", 0700) == 0 && mkdirat(fd, "e/shut/in", 0700) == 0 &&
	    close(openat(fd, "e/shut/in/f", O_CREAT | O_WRONLY, 0600)) == 0 && fchmodat(fd, "e/shut/in", 0, 0) == 0 &&
	    fchmodat(fd, "e/shut", 0, 0) == 0 && symlinkat("../out", fd, "e/home/l") == 0,
	    "a tree of empty, unreadable and nested directories");
	ok(rmtree_at(fd, "e") == 0, "... removed");
	ok(faccessat(fd, "e", F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT, "... gone");
	ok(faccessat(fd, "out/keep", F_OK, 0) == 0, "... the link's target untouched");
	if (geteuid() == 0) {
		/* another file system's empty directory (a mount point) is
		 * refused as before, never removed (EBUSY) nor walked */
		char m[600];
		ok(mkdirat(fd, "x", 0700) == 0 && mkdirat(fd, "x/m", 0700) == 0, "a tree with a mount point");
		snprintf(m, sizeof m, "%s/x/m", tmpl);
		if (mount("none", m, "tmpfs", 0, "mode=0700") == 0) {
			ok(rmtree_at(fd, "x") < 0 && errno == EXDEV, "... refused: EXDEV");
			ok(umount(m) == 0, "... still mounted (unmounted now)");
		} else {
			diag("no tmpfs mount here (%s): mount point case not run", strerror(errno));
		}
		ok(rmtree_at(fd, "x") == 0, "... removed once unmounted");
	}
	/* a tree's id: read through no symbolic link, exactly 32 hex and a newline */
	mkdirat(fd, "a0123456789", 0700);
	mkdirat(fd, "out/a0123456789", 0700);
	{
		static const struct { const char *body; int good; } ids[] = {
			{ "0123456789abcdef0123456789abcdef\n", 1 },
			{ "0123456789abcdef0123456789abcdef", 0 },
			{ "0123456789abcdef0123456789abcdeF\n", 0 },
			{ "0123456789abcdef0123456789abcdef\nx", 0 },
		};
		for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
			int f = openat(fd, "a0123456789/id", O_WRONLY | O_CREAT | O_TRUNC, 0600);
			ok(f >= 0 && write(f, ids[k].body, strlen(ids[k].body)) == (ssize_t)strlen(ids[k].body), "id %zu written", k);
			close(f);
			memset(id, 0, sizeof id);
			r = store_tree_id(fd, "a0123456789", id);
			ok(ids[k].good ? r == 0 && strcmp(id, "0123456789abcdef0123456789abcdef") == 0 : r < 0,
			    "id %zu %s", k, ids[k].good ? "read" : "refused");
		}
	}
	ok(renameat(fd, "a0123456789/id", fd, "out/a0123456789/id") == 0 && rmtree_at(fd, "a0123456789") == 0 &&
	    symlinkat("out/a0123456789", fd, "a0123456789") == 0, "a link in a tree's place, to a tree with an id");
	ok(store_tree_id(fd, "a0123456789", id) < 0 && (errno == ELOOP || errno == ENOTDIR), "a tree's id is never read through a link");
	ok(store_tree_id(fd, "out", id) < 0 && errno == EINVAL, "a name that is not a tree's is refused");
	ok(rmtree_at(fd, "a0123456789") == 0 && rmtree_at(fd, "out") == 0, "cleanup");
	/* file_read_bounded (records, profiles) sizes its buffer by the
	 * file's size: the bound is still the bound, and a file whose size
	 * says less (/proc's say 0) is still read whole */
	{
		char *rb = NULL, big[3000];
		size_t rl = 0;
		memset(big, 'x', sizeof big);
		i = openat(fd, "max", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ok(i >= 0 && write(i, big, sizeof big) == (ssize_t)sizeof big, "a file of 3000 bytes");
		close(i);
		ok(file_read_bounded(fd, "max", sizeof big, &rb, &rl) == 0 && rl == sizeof big && rb[rl] == '\0' &&
		    memcmp(rb, big, sizeof big) == 0, "read whole at a bound of its size");
		free(rb);
		rb = NULL;
		ok(file_read_bounded(fd, "max", sizeof big - 1, &rb, &rl) < 0 && errno == EFBIG && rb == NULL,
		    "one byte over the bound: EFBIG");
		ok(unlinkat(fd, "max", 0) == 0, "cleanup");
		r = file_read_bounded(AT_FDCWD, "/proc/self/status", 1 << 16, &rb, &rl);
		ok(r == 0 && rl > 600 && strncmp(rb, "Name:", 5) == 0 && rb[rl - 1] == '\n' && strlen(rb) == rl,
		    "a /proc file (size 0) of %zu bytes, read whole past the first buffer", rl);
		if (r == 0)
			free(rb);
		ok(file_read_bounded(AT_FDCWD, "/proc/self/status", 600, &rb, &rl) < 0 && errno == EFBIG,
		    "the same at a bound of 600: EFBIG");
	}
	close(fd);
	rmdir(tmpl);
	return done_testing();
}
