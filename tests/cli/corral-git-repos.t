#!/bin/sh
# corral run in git repositories of other shapes, and the import's refusals:
# a repository that still has the removed --git-protect index symbolic link
# (undone on the next run), a commit whose objects git fsck rejects
# (index-pack --strict: nothing imported, the attempt kept), the agent's
# other branches and tags (each imported on its own), a run inside a
# linked worktree, a run in a repository with a submodule (what corral(1)
# says happens to it), and doctor's git line. Each with a control. As root
# and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
NS=$T/helpers/nonamespace

suite() {	# suite WHO AS
	who=$1 AS=$2
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/repo
	ST=$H/.local/state/corral
	mkdir -p "$H" "$W" "$B/subsrc"
	printf '[user]\n\tname = Agent\n\temail = agent@example.com\n' > "$H/.gitconfig"
	U="-c user.name=U -c user.email=u@x"
	(cd "$B/subsrc" && git init -q -b main && echo s > s && git add s && git $U commit -qm s)
	(cd "$W" && git init -q -b main && echo one > a && git add a && git $U commit -qm init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C"
	G() { $AS env -i HOME=$H PATH=/usr/bin:/bin timeout 20 git -C "$W" "$@"; }
	R() { (cd "$W" && $AS $E timeout 120 "$C" run "$@"); }
	branch() { G for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1; }
	head0=$(G rev-parse HEAD)
	AS0=; [ "$who" = nobody ] && AS0="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"

	# the old --git-protect layout: .git/index -> corral-index/index
	mkdir "$W/.git/corral-index" && mv "$W/.git/index" "$W/.git/corral-index/index" &&
	    ln -s corral-index/index "$W/.git/index" && cp "$W/.git/corral-index/index" "$B/index.saved"
	[ "$who" = nobody ] && chown -h -R nobody:nogroup "$W/.git"
	is "$(readlink "$W/.git/index"):$(G ls-files)" "corral-index/index:a" "$who: control: the old layout is live (git reads the index through the link)"
	run R -- true
	is "$rc" 0 "$who: a run in a repository with the old layout works"
	status_ok "$([ -f "$W/.git/index" ] && [ ! -L "$W/.git/index" ] && [ ! -e "$W/.git/corral-index" ]; echo $?)" "$who: ... its .git/index is a file again, corral-index gone"
	status_ok "$(cmp -s "$W/.git/index" "$B/index.saved"; echo $?)" "$who: ... the same index, byte for byte"
	is "$(G status --porcelain):$(G ls-files)" ":a" "$who: ... and git status sees the same clean tree"
	run R -- true
	is "$rc:$(G ls-files)" "0:a" "$who: the next run leaves the restored index alone"
	# a link whose target is gone: the link goes, git rebuilds no index
	mkdir "$W/.git/corral-index" && cp "$W/.git/index" "$B/index.saved" && rm "$W/.git/index" &&
	    ln -s corral-index/index "$W/.git/index"
	[ "$who" = nobody ] && chown -h -R nobody:nogroup "$W/.git"
	run R -- true
	is "$rc" 0 "$who: a run with a dangling old link works"
	status_ok "$([ ! -L "$W/.git/index" ] && [ ! -e "$W/.git/index" ] && [ ! -e "$W/.git/corral-index" ]; echo $?)" "$who: ... the link is removed"
	cp "$B/index.saved" "$W/.git/index"; [ "$who" = nobody ] && chown nobody:nogroup "$W/.git/index"
	# a symbolic link of the user's own (another target) is not ours to touch
	mv "$W/.git/index" "$B/mine.index" && ln -s "$B/mine.index" "$W/.git/index"
	run R -- true
	is "$(readlink "$W/.git/index")" "$B/mine.index" "$who: control: an index link of another shape is left alone"
	rm "$W/.git/index" && mv "$B/mine.index" "$W/.git/index"

	# a commit git fsck rejects (a tree entry named .git): refused whole
	bad='b=$(echo evil | git hash-object -w --stdin) && t=$(printf "100644 blob $b\t%s\n" "$N" | git mktree) &&
	    git update-ref HEAD $(git commit-tree -p HEAD -m "agent: tree" $t) && echo $t > .tree && echo left > left'
	run R -- sh -c "N=ok; $bad"
	is "$rc" 0 "$who: control: the same hand-made commit with an honest name runs"
	br=$(branch)
	is "$(G log --format=%s -1 "$br~1" 2>/dev/null):$(G show "$br~1:ok" 2>/dev/null)" "agent: tree:evil" "$who: control: ... and is imported"
	G branch -q -D "$br"
	run R -- sh -c "N=.git; $bad"
	is "$rc" 0 "$who: a commit with a tree entry named .git: the run ends with the agent's status"
	like "$err" "hasDotgit" "$who: ... git index-pack --strict names the fault"
	like "$err" "corral: warning: git: the import failed: the attempt's commits were refused: its objects did not pass git pack-objects \\(status [0-9]+\\) and index-pack --strict \\(status 128\\)" "$who: ... the import refuses them"
	d=$(ls -d "$ST"/git/*/ 2>/dev/null | grep -E '/[0-9a-f]{32}/$' | head -1)
	like "$err" "corral: hint: nothing is lost: the agent's checkout and repository stay in $ST/git/[0-9a-f]{32}" "$who: ... and says where the attempt is"
	is "$(branch)" "" "$who: ... no branch made"
	t=$(cat "$d/work/.tree" 2>/dev/null)
	status_ok "$([ -n "$t" ] && ! G cat-file -e "$t" 2>/dev/null; echo $?)" "$who: ... the bad tree is not in the real repository"
	status_ok "$([ -f "$d/work/left" ] && [ -d "$d/work/.git/objects" ]; echo $?)" "$who: ... the attempt is kept (its files and repository)"
	status_ok "$([ -f "$d/base.index" ] && [ "$(stat -c %y "$d/base.index")" = "$(stat -c %y "$d/work/.git/index")" ]; echo $?)" "$who: ... its starting index copied with its time (git's racily clean entries stay racy for the import)"
	is "$(G rev-parse HEAD):$(G status --porcelain)" "$head0:" "$who: ... the real repository unchanged"
	rm -rf "$ST/git"

	# its other branches and tags: each imported on its own, checked like HEAD
	G branch -q keep; G branch -q moved
	run R -- sh -c 'git checkout -qb side && echo s > s && git add s && git commit -qm "agent: side" && git tag v1 &&
	    git tag -a -m ann v2 && git checkout -q main && echo m >> a && git commit -qam "agent: main" && git branch same &&
	    git branch -f moved side && mkfifo .git/refs/heads/fifo && b=$(echo evil | git hash-object -w --stdin) &&
	    t=$(printf "100644 blob $b\t.git\n" | git mktree) && git update-ref refs/heads/bad $(git commit-tree -m bad $t)'
	is "$rc" 0 "$who: other refs: the run ends"
	br=$(branch); s8=${br#corral/}
	like "$err" "corral: git: its other branches and tags \\(new or moved\\), each checked like HEAD: corral/$s8-moved, corral/$s8-side, tags/corral/$s8/v1, tags/corral/$s8/v2" "$who: other refs: the line names the refs made"
	is "$(G log --format=%s -1 "$br"):$(G log --format=%s -1 "corral/$s8-side"):$(G cat-file -t "corral/$s8/v2"):$(G rev-parse "corral/$s8/v1" "corral/$s8-moved" | sort -u | wc -l)" \
	    "agent: main:agent: side:tag:1" "$who: other refs: HEAD's branch, a new branch, an annotated tag, a moved branch"
	is "$(G for-each-ref --format='%(refname)' "refs/heads/corral/$s8-same" "refs/heads/corral/$s8-keep" "refs/heads/corral/$s8-main" "refs/heads/corral/$s8-bad" "refs/heads/corral/$s8-fifo")" "" \
	    "$who: other refs: control: a branch at HEAD's commit, an unmoved one, HEAD's own are not repeated; the bad one and the FIFO are not imported"
	like "$err" "corral: warning: git: 2 of its other refs were not imported: 1 ref file with a name git refuses, not a regular file, or malformed, refs/heads/bad \\(its objects were refused\\); they stay in $ST/git/[0-9a-f]{32}" "$who: other refs: the bad branch and the FIFO are named, the attempt kept"
	is "$(G rev-parse keep moved main | sort -u | wc -l):$(G rev-parse main)" "1:$head0" "$who: other refs: the user's own branches are not moved"
	G branch -q -D keep moved "$br" "corral/$s8-side" "corral/$s8-moved"; G tag -d "corral/$s8/v1" "corral/$s8/v2" >/dev/null
	rm -rf "$ST/git"

	# a linked worktree the user made: the run starts from its state
	G worktree add -q "$B/wt" -b feature
	echo wip > "$B/wt/wip"; echo two >> "$B/wt/a"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B/wt"
	run sh -c "cd '$B/wt' && $AS0 $E timeout 120 '$C' run -- sh -c 'cat wip; git branch --show-current; echo three >> a; git add wip && git commit -qam \"agent: wt\"'"
	is "$rc:$out" "0:wip
feature" "$who: in a linked worktree: the agent sees its branch and untracked files"
	like "$err" "corral: git: branch corral/[0-9a-f]{8}: 1 commit, 1 file changed" "$who: ... its commit comes back"
	br=$(branch)
	is "$(G show "$br:a" | tr '\n' ' '):$(G cat-file -e "$br:wip" 2>/dev/null && echo wip)" "one two three :" "$who: ... holding the file it changed (with the worktree's change to it); wip, untracked there and unchanged, stays out"
	is "$(G rev-parse "$br~1"):$(G -C "$B/wt" rev-parse HEAD)" "$head0:$head0" "$who: ... on the worktree's HEAD, which stays where it was"
	is "$(G -C "$B/wt" status --porcelain | tr '\n' ' '):$(G status --porcelain)" " M a ?? wip :" "$who: ... both checkouts untouched"
	G branch -q -D "$br"

	# a submodule: its gitlink, not its files (corral(1))
	G $U -c protocol.file.allow=always submodule add -q "$B/subsrc" sub >/dev/null 2>&1
	G $U commit -qm sub
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	head1=$(G rev-parse HEAD) sub1=$(G rev-parse HEAD:sub)
	is "$(cat "$W/sub/s")" s "$who: control: the user's submodule is checked out"
	run R -- sh -c 'ls -A sub | wc -l; git submodule status | cut -c1; echo x >> a; git commit -qam "agent: sub"; echo f > sub/f; mkdir sub/.git'
	is "$rc:$out" "0:0
-" "$who: submodule: the agent's checkout holds an empty directory, the submodule not initialized"
	br=$(branch)
	is "$(G log --format=%s -1 "$br")" "agent: sub" "$who: submodule: the agent's commit comes back"
	is "$(G ls-tree "$br" sub | cut -c1-14):$(G rev-parse "$br:sub")" "160000 commit :$sub1" "$who: submodule: the gitlink is the user's, unchanged"
	is "$(G ls-tree -r --name-only "$br" | tr '\n' ' ')" ".gitmodules a sub " "$who: submodule: files the agent wrote in its directory are not imported"
	like "$err" "corral: warning: git: 1 nested repositories or special files were moved aside" "$who: submodule: a repository the agent made there is moved aside"
	is "$(cat "$W/sub/s"):$(G -C "$W/sub" status --porcelain):$(G rev-parse HEAD)" "s::$head1" "$who: submodule: the user's submodule checkout untouched"
	G branch -q -D "$br"
	rm -rf "$ST/git"

	# doctor's git line
	run sh -c "cd '$W' && $AS0 $E '$C' doctor"
	like "$out" "  git +worktree: the agent works in a checkout of its own; its work comes back on a branch" "$who: doctor: worktree, the default"
	printf '{"git": "off"}' > "$B/off.json"; printf '{"git": "in-place"}' > "$B/ip.json"
	run sh -c "cd '$W' && $AS0 $E '$C' doctor -p '$B/off.json'"
	like "$out" "  git +off -- WARNING: the agent writes your real .git" "$who: doctor: off is a warning"
	run sh -c "cd '$W' && $AS0 $E '$C' doctor -p '$B/ip.json'"
	like "$out" "  git +in-place: your checkout over a private repository \\(a mount namespace works here\\)" "$who: doctor: in-place where a namespace can be had"
	run sh -c "cd '$W' && $AS0 $NS $E '$C' doctor -p '$B/ip.json'"
	like "$out" "  git +in-place -- refused here: no mount namespace; use worktree" "$who: doctor: in-place without namespaces is refused, naming worktree"
	run sh -c "cd '$W' && $AS0 $NS $E '$C' doctor --json"
	like "$out" '"git":"worktree"' "$who: doctor --json: the mode"
	run sh -c "cd '$B/subsrc' && rm -rf .git && $AS0 $E '$C' doctor"
	unlike "$out" "  git  " "$who: control: no git line outside a repository"
}

suite root ""
suite nobody as_nobody
done_testing
