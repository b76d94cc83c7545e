/* gitref: what the import reads from the attempt repository, as data. */
#include <string.h>

#include "gitref.h"
#include "tap.h"

#define N(s) gitref_name_ok(s, strlen(s))
#define O40 "0123456789abcdef0123456789abcdef01234567"

int
main(void)
{
	char ref[GITREF_NAME_MAX + 1], oid[GITREF_OID_MAX + 1], p[64];
	const char *pk;

	ok(N("refs/heads/main") && N("refs/heads/corral/x-1.2") && N("refs/tags/v1"), "plain ref names");
	ok(!N("HEAD") && !N("refs/") && !N("heads/main") && !N("refs/heads/../../hooks/x"), "not under refs/, or climbing");
	ok(!N("refs/heads/a..b") && !N("refs/heads/a//b") && !N("refs/heads/.hidden") && !N("refs/heads/x.lock") &&
	    !N("refs/heads/x.lock/y") && !N("refs/heads/x.") && !N("refs/heads/x/") && !N("refs/heads/a@{1}"),
	    "check-ref-format's rules");
	ok(!N("refs/heads/a b") && !N("refs/heads/a\tb") && !N("refs/heads/a~1") && !N("refs/heads/a^") &&
	    !N("refs/heads/a:b") && !N("refs/heads/a?") && !N("refs/heads/a*") && !N("refs/heads/a[") &&
	    !N("refs/heads/a\\b") && !N("refs/heads/\xc3\xa9") && !gitref_name_ok("refs/heads/a\nb", 13),
	    "no spaces, controls, specials or non-ASCII");
	ok(gitref_oid_ok(O40, 40, 40) && !gitref_oid_ok(O40, 40, 64) && !gitref_oid_ok(O40, 39, 39),
	    "object ids: the repository's length only");
	ok(!gitref_oid_ok("0000000000000000000000000000000000000000", 40, 40) &&
	    !gitref_oid_ok("0123456789ABCDEF0123456789abcdef01234567", 40, 40) &&
	    !gitref_oid_ok("g123456789abcdef0123456789abcdef01234567", 40, 40), "no null id, no uppercase, hex only");

	is_int(gitref_parse("ref: refs/heads/main\n", 21, 40, ref, oid), 1, "a symbolic HEAD");
	is_str(ref, "refs/heads/main", "... its target");
	is_int(gitref_parse(O40 "\n", 41, 40, ref, oid), 0, "a detached HEAD");
	is_str(oid, O40, "... its id");
	is_int(gitref_parse("ref: refs/heads/../../config\n", 29, 40, ref, oid), -1, "a climbing target: refused");
	is_int(gitref_parse("ref: refs/heads/a\nref: refs/heads/b\n", 36, 40, ref, oid), -1, "two lines: refused");
	is_int(gitref_parse(O40 "\n\n", 42, 40, ref, oid), -1, "trailing junk: refused");
	is_int(gitref_parse("ref: refs/heads/a\0x", 19, 40, ref, oid), -1, "a NUL: refused");
	is_int(gitref_parse("", 0, 40, ref, oid), -1, "empty: refused");

	pk = "# pack-refs with: peeled fully-peeled sorted \n" O40 " refs/heads/main\n^" O40 "\n" O40 " refs/tags/v1\n";
	is_int(gitref_packed_find(pk, strlen(pk), "refs/tags/v1", 40, oid), 0, "packed-refs: found");
	is_int(gitref_packed_find(pk, strlen(pk), "refs/heads/nope", 40, oid), 1, "packed-refs: absent");
	pk = O40 " refs/heads/main\n# late header\n";
	is_int(gitref_packed_find(pk, strlen(pk), "refs/heads/main", 40, oid), -1, "a header after the first line: malformed");
	pk = O40 " refs/heads/../x\n";
	is_int(gitref_packed_find(pk, strlen(pk), "refs/heads/main", 40, oid), -1, "a bad name anywhere: malformed");
	pk = "xyz refs/heads/main\n";
	is_int(gitref_packed_find(pk, strlen(pk), "refs/heads/main", 40, oid), -1, "a bad id: malformed");

	is_int(gitref_gitfile("gitdir: /r/.git/worktrees/x\n", 28, p, sizeof p), 0, "a gitfile");
	is_str(p, "/r/.git/worktrees/x", "... its path");
	is_int(gitref_gitfile("gitdir: \n", 9, p, sizeof p), -1, "an empty gitfile path: refused");
	is_int(gitref_gitfile("gitdir: a\nb\n", 12, p, sizeof p), -1, "two lines: refused");
	return done_testing();
}
