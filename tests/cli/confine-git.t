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
	is "$out" EXDEV "$who: moving .git into a subdirectory: EXDEV"
	run c "$TRY" rename "$R/.git" "$R/.git.old"
	is "$out" EBUSY "$who: renaming .git beside itself: EBUSY"
	run c "$TRY" write "$R/.git/refs/heads/../../hooks/post-checkout"
	is "$out" EROFS "$who: no way into hooks through refs/"
	run c "$TRY" symlink "$TMP/$who/home/.bashrc" "$R/.git/logs/refs/heads/x"
	is "$out" EACCES "$who: a symlink into the shared logs/: EACCES"
	run c "$TRY" symlink /etc/passwd "$R/.git/corral-index/index.new"
	is "$out" EACCES "$who: a symlink into the index directory: EACCES"
	run c sh -c "mkdir -p $R/src/d && ln -s $TMP/$who/home/.bashrc $R/src/d/main && echo ok"
	is "$out" ok "$who: symlinks in existing workspace directories work"
	run c "$TRY" rename "$R/src/d" "$R/.git/logs/refs/heads/d"
	is "$out" EXDEV "$who: moving a directory holding a symlink into logs/: EXDEV"
	run c "$TRY" rename "$R/src/d/main" "$R/.git/refs/heads/d"
	is "$out" EXDEV "$who: moving a symlink into refs/: EXDEV"
	rm -rf "$R/src/d"
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
	run c "$TRY" symlink newtop "$R/newlink"
	is "$out" EACCES "$who: trade-off: but no new symlinks at the top level"
	run c "$TRY" write "$TMP/$who/outside"
	is "$out" EACCES "$who: ... but nothing outside the workspace"
}

mkdir -p "$TMP/c/repo/.git"
run "$C" -x /usr -W "$TMP" --git-protect "$TMP/c/repo" -- true
is "$rc:$err" "125:confine: fatal: write grant on $TMP would cover the .git that --git-protect $TMP/c/repo protects
confine: hint: grant the workspace through --git-protect alone" "a write grant above the repository is refused"
run "$C" -x /usr -w "$TMP/c/repo/.git" --git-protect "$TMP/c/repo" -- true
is "$rc" 125 "a write grant inside its .git is refused"
run "$C" -x /usr -r "$TMP" -w "$TMP/c/repo2" --git-protect "$TMP/c/repo" -- true
ok "$([ "$rc" -ne 125 ] || ! printf '%s' "$err" | grep -q 'would cover'; echo $?)" "read grants above and write grants beside it are fine"

suite root ""
suite nobody as_nobody
done_testing
