#!/bin/sh
# confine --git-protect: .git/hooks, .git/config, info/attributes and the
# gitdir/commondir pointers stay unwritable while git add and commit work;
# as root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
TRY=$T/helpers/confine-try

suite() {	# suite WHO AS
	who=$1 AS=$2
	R=$TMP/$who/repo
	mkdir -p "$TMP/$who/home" "$R"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$TMP/$who"
	E="env -i PATH=/usr/bin:/bin HOME=$TMP/$who/home GIT_CONFIG_NOSYSTEM=1
	    GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t
	    GIT_COMMITTER_EMAIL=t@example.org"
	$AS $E sh -c "cd $R && git init -q -b main && mkdir src && echo 1 > src/a && echo r > README &&
	    git add . && git commit -qm init" >/dev/null 2>&1
	ok $? "$who: a repository outside"
	cp "$R/.git/config" "$TMP/$who/config.before"
	c() { $AS $E "$C" -x /usr -r /etc -r /proc --dev -x "$T/helpers" -r "$TMP/$who/home" \
	    --git-protect "$R" -- "$@"; }

	run c "$TRY" write "$R/.git/hooks/pre-commit"
	is "$out" EROFS "$who: planting .git/hooks/pre-commit: EROFS"
	run c "$TRY" write "$R/.git/config"
	is "$out" EROFS "$who: editing .git/config: EROFS"
	run c sh -c "cd $R && git config core.hooksPath /tmp"
	ok "$([ "$rc" -ne 0 ]; echo $?)" "$who: git config core.hooksPath fails"
	run c "$TRY" write "$R/.git/info/attributes"
	is "$out" EROFS "$who: writing .git/info/attributes: EROFS"
	run c "$TRY" rename "$R/.git/hooks" "$R/.git/hooks.old"
	is "$out" EBUSY "$who: moving .git/hooks aside: EBUSY"
	run c "$TRY" rename "$R/.git/config" "$R/.git/config.old"
	is "$out" EBUSY "$who: replacing .git/config by rename: EBUSY"
	run c sh -c "echo gitdir: /tmp > $R/.git/commondir && echo x > $R/.git/config.worktree && cat $R/.git/commondir"
	is "$rc:$out" "0:gitdir: /tmp" "$who: pointer files written inside stay in a private .git root"
	ok "$([ ! -e "$R/.git/commondir" ] && [ ! -e "$R/.git/config.worktree" ]; echo $?)" \
	    "$who: ... the real .git never gets commondir or config.worktree"
	run c "$TRY" rename "$R/.git" "$R/src/g"
	is "$out" EBUSY "$who: moving .git away: EBUSY"
	run c "$TRY" write "$R/.git/refs/heads/../../hooks/post-checkout"
	is "$out" EROFS "$who: no way into hooks through refs/"
	cmp -s "$R/.git/config" "$TMP/$who/config.before"
	ok $? "$who: .git/config unchanged"
	ok "$([ ! -e "$R/.git/hooks/pre-commit" ] && [ ! -e "$R/.git/commondir" ]; echo $?)" \
	    "$who: no hook, no pointer planted"

	run c sh -c "cd $R && echo 2 >> src/a && echo new > src/b && echo r2 >> README &&
	    git add -A && git commit -qm inside && git log --format=%s | head -1"
	is "$rc:$out" 0:inside "$who: git add and git commit work inside"
	run c sh -c "cd $R && git status --porcelain | wc -l"
	is "$out" 0 "$who: ... leaving a clean tree"
	run c sh -c "cd $R && echo 3 >> src/a && git commit -qam again && git log --format=%s | head -1"
	is "$rc:$out" 0:again "$who: git commit -a works"
	run $AS $E sh -c "cd $R && git log --format=%s | tr '\n' ' ' && git status --porcelain | wc -l"
	is "$out" "again inside init 0" "$who: git outside sees the commits and a clean index"
	run c "$TRY" write "$R/newtop"
	is "$out" ok "$who: the workspace root takes new files"
	run c "$TRY" write "$TMP/$who/outside"
	is "$out" EACCES "$who: ... but nothing outside the workspace"
}

suite root ""
suite nobody as_nobody
done_testing
