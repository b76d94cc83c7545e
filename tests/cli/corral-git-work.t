#!/bin/sh
# corral run in a git workspace the way people work (issue 23): a run from
# a subdirectory, the user's uncommitted and untracked work as the
# attempt's base (an agent's `git commit -a` holds only its own change, the
# printed `corral apply` keeps the user's changes uncommitted, untracked
# secrets never reach the objects, a no-op run makes no branch), the
# user's node_modules and .venv used read-only by a real `npm test` and
# `python -m pytest`, an empty repository, the stable checkout path,
# corral branches and --prune, and what --in-place says. Each with a
# control. As root, as nobody, and as nobody without namespaces.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
NS=$T/helpers/nonamespace
LP=$("$CORRAL_TOP/mk/npm" gitdeps left-pad@1.3.0)
status_ok $? "left-pad installed from npm"

suite() {	# suite WHO X (X: "" or the no-namespace helper)
	who=$1 X=$2
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/proj
	ST=$H/.local/state/corral
	mkdir -p "$H" "$W"
	printf '[user]\n\tname = Agent\n\temail = agent@example.com\n' > "$H/.gitconfig"
	U="-c user.name=U -c user.email=u@x"
	(cd "$W" && git init -q -b main && printf 'one\ntwo\nthree\nfour\nfive\n' > a && echo b > b &&
	    mkdir -p src/lib && echo s > src/lib/s && seq -f 'l%g' 60 > L && printf 'node_modules/\n.venv/\n__pycache__/\ntools/\n' > .gitignore &&
	    printf '{"name":"p","version":"1.0.0","scripts":{"test":"node test.js"}}\n' > package.json &&
	    printf 'const lp = require("left-pad");\nif (lp("x", 3) !== "  x") process.exit(1);\nconsole.log("npm-test-ok");\n' > test.js &&
	    printf 'import mypad\ndef test_pad():\n    assert mypad.pad("x") == "  x"\n' > test_pad.py &&
	    git add . && git $U commit -qm init)
	AS=; [ "$who" != root ] && AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
	[ "$who" != root ] && chown -R nobody:nogroup "$B"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C"
	G() { $AS env -i HOME=$H PATH=/usr/bin:/bin timeout 20 git -C "$W" "$@"; }
	R() { (cd "$W/${SUB-}" && $AS $X $E timeout 120 "$C" run "$@"); }
	CC() { (cd "$W" && $AS $E timeout 60 "$C" "$@"); }
	# the branch the last run named (two made in one second tie on committerdate)
	branch() {
		b=$(printf '%s\n' "$err" | sed -n 's|^corral: git: branch \(corral/[0-9a-f]*\):.*|\1|p' | tail -n 1)
		[ -n "$b" ] && echo "$b" && return
		G for-each-ref --sort=-committerdate --format='%(refname:short)' 'refs/heads/corral/*' | head -1
	}
	nbranch() { G for-each-ref 'refs/heads/corral/*' | wc -l; }

	# a run from a subdirectory: a repository of the top, started in the same place
	SUB=src/lib run R -- sh -c 'pwd; git rev-parse --show-prefix; echo agent >> s; git commit -qam "agent: s"'
	co=$(printf '%s\n' "$out" | head -1)
	is "$rc:$(printf '%s\n' "$out" | tail -1)" "0:src/lib/" "$who: from a subdirectory: the agent gets the repository's top, in the same subdirectory"
	like "$co" "^$ST/git/co/[0-9a-f]{16}\\.0/proj/src/lib\$" "$who: ... of its own checkout"
	like "$err" "corral: git: worktree: the agent works in $ST/git/co/[0-9a-f]{16}\\.0/proj, in src/lib, a checkout of its own" "$who: ... and the start line says so"
	br=$(branch)
	is "$(G show "$br:src/lib/s" | tr '\n' ' '):$(G log --format=%s -1 "$br")" "s agent :agent: s" "$who: ... its commit comes back"
	like "$err" "merge: git merge $br " "$who: ... a clean tree: the merge step is git merge"
	run G $U merge -q --ff-only "$br"
	is "$rc:$(cat "$W/src/lib/s" | tr '\n' ' ')" "0:s agent " "$who: ... which works"
	SUB=src/lib run R -- sh -c 'pwd'
	is "$out" "$co" "$who: the next run gets the same checkout path (per-path trust carries over)"
	# a change in place of the same size, its time put back to the nanosecond,
	# right after the set-up: git's stat alone would miss it in that second
	for n in 1 2 3; do
		run R -- sh -c 'm=$(stat -c %y b); printf "$0\n" | dd of=b conv=notrunc status=none; touch -d "$m" b' "$n"
		br=$(branch)
		is "$rc:$(G show "$br:b" 2>&1)" "0:$n" "$who: a same-size change in place, mtime put back ($n of 3): imported"
		G branch -q -D "$br"
	done
	mkdir -p "$B/fifo" && mkfifo "$B/fifo/go"; [ "$who" != root ] && chown -R nobody "$B/fifo"
	(cd "$W" && $AS $X $E timeout 120 "$C" run -- sh -c 'pwd; sleep 2' >"$B/bg.out" 2>/dev/null) &
	bg=$!
	i=0; while [ ! -s "$B/bg.out" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	run R -- pwd
	wait $bg
	like "$(cat "$B/bg.out"):$out" "^$ST/git/co/[0-9a-f]{16}\\.0/proj:$ST/git/co/[0-9a-f]{16}\\.1/proj\$" "$who: a run beside a running one gets a checkout of its own"

	# the user's local change and an untracked secret; the agent commits -a
	sed -i 's/^one$/ONE/' "$W/a"; echo "TOKEN=s3cr3t-$who" > "$W/.env.local"
	[ "$who" != root ] && chown nobody "$W/a" "$W/.env.local"
	head1=$(G rev-parse HEAD)
	run R -- sh -c 'git status --porcelain | wc -l; cat .env.local; echo six >> a; git commit -qam "agent: six"'
	is "$rc:$out" "0:0
TOKEN=s3cr3t-$who" "$who: the agent sees your files, committed or not, in a clean tree (its base)"
	br=$(branch); id=${br#corral/}
	is "$(G log --format=%s "$head1..$br" | tr '\n' '|')" "agent: six|" "$who: its commit -a is one commit over your HEAD, no commit of your state"
	is "$(G diff --name-only "$head1" "$br" | tr '\n' ' ')" "a " "$who: ... holding only the file it changed"
	is "$(G show "$br:a" | tr '\n' ' ')" "one two three four five six " "$who: ... and in it only its change (your ONE stays out)"
	like "$err" "apply: corral apply $id \\(three-way" "$who: with local changes the printed step is corral apply"
	run G $U merge --no-commit "$br"
	status_ok "$([ "$rc" -ne 0 ]; echo $?)" "$who: control: git merge refuses over your local change"
	run CC apply "$id"
	is "$rc" 0 "$who: corral apply works"
	like "$err" "corral: applied $br: 1 file changed in your working tree" "$who: ... and says what it did"
	is "$(tr '\n' ' ' < "$W/a"):$(G status --porcelain | tr '\n' ' '):$(G diff --cached --name-only)" \
	    "ONE two three four five six : M a ?? .env.local :" "$who: ... its change and yours in the file, uncommitted, nothing staged, your HEAD unmoved"
	is "$(G rev-parse HEAD)" "$head1" "$who: ... HEAD where it was"
	# the agent adds everything: your untracked secret stays out
	run R -- sh -c 'echo new > new.txt; git add -A; git commit -qm "agent: all"'
	br=$(branch)
	is "$(G diff --name-only "$head1" "$br" | tr '\n' ' ')" "new.txt " "$who: git add -A by the agent: only its file comes back"
	is "$(G cat-file --batch-all-objects --batch | grep -c "s3cr3t-$who")" 0 "$who: your untracked secret is in none of the repository's objects"
	is "$(G log --all --format=%s | grep -c 'working state')" 0 "$who: the base commit is on no branch"
	# conflict: changes nothing
	echo mine > "$W/new.txt"; [ "$who" != root ] && chown nobody "$W/new.txt"
	cp "$W/a" "$B/a.before"
	run CC apply "$br"
	is "$rc" 1 "$who: corral apply over an untracked file the branch adds: refused"
	like "$err" "corral: fatal: $br adds new.txt, and you have an untracked new.txt there; nothing was changed" "$who: ... saying which"
	status_ok "$(cmp -s "$W/a" "$B/a.before" && [ "$(cat "$W/new.txt")" = mine ]; echo $?)" "$who: ... and nothing changed"
	rm -f "$W/new.txt"
	echo conflict > "$W/a"; [ "$who" != root ] && chown nobody "$W/a"
	run R -- sh -c 'printf "x\n" > a; git commit -qam "agent: x"'
	br=$(branch)
	echo mine-again > "$W/a"
	run CC apply "${br#corral/}"
	is "$rc" 1 "$who: a conflict: refused"
	like "$err" "corral: fatal: $br conflicts with your working files: a; nothing was changed" "$who: ... naming the file"
	is "$(cat "$W/a")" "mine-again" "$who: ... your file untouched"
	cp "$B/a.before" "$W/a"

	# a file you and the agent both changed: its commit holds only its change
	sed -i 's/^l1$/USER1/' "$W/L"; [ "$who" != root ] && chown nobody "$W/L"
	run R -- sh -c 'sed -i "s/^l50\$/AGENT50/" L && git commit -qam "agent: L50"'
	br=$(branch); id=${br#corral/}
	is "$(G diff -U0 "$head1" "$br" -- L | grep '^[-+][^-+]' | tr '\n' ' ')" "-l50 +AGENT50 " \
	    "$who: you changed line 1 of L (uncommitted), the agent line 50: its commit's diff against HEAD shows only line 50"
	is "$(G show "$br:L" | sed -n '1p;50p' | tr '\n' ' ')" "l1 AGENT50 " "$who: ... its L holds HEAD's line 1"
	unlike "$err" "overlap" "$who: ... and nothing is said to overlap"
	run CC apply "$id"
	is "$rc:$(sed -n '1p;50p' "$W/L" | tr '\n' ' ')" "0:USER1 AGENT50 " "$who: corral apply then gives both"
	is "$(G diff --cached --name-only):$(G status --porcelain -- L)" ": M L" "$who: ... uncommitted, nothing staged"
	# overlapping: the agent changes the line you changed
	run R -- sh -c 'sed -i "s/^USER1\$/AGENT1/" L && git commit -qam "agent: L1"'
	br=$(branch)
	like "$err" "corral: warning: git: L: the agent changed what you changed \\(uncommitted\\) there, and the two overlap: the branch holds its whole version of that file, your change included; corral apply will stop on it" \
	    "$who: the agent's edit overlaps yours: said, naming the file"
	is "$(G show "$br:L" | sed -n '1p;50p' | tr '\n' ' ')" "AGENT1 AGENT50 " "$who: ... the branch holds its whole L"
	cp "$W/L" "$B/L.before"
	run CC apply "${br#corral/}"
	is "$rc" 1 "$who: ... corral apply stops there"
	like "$err" "corral: fatal: $br conflicts with your working files: L; nothing was changed" "$who: ... naming L"
	status_ok "$(cmp -s "$W/L" "$B/L.before"; echo $?)" "$who: ... your L untouched"

	# its other branches over your state: carried onto HEAD like its main one;
	# ref names git refuses are not imported
	run R -- sh -c 'git checkout -qb side && echo side > side.txt && git add side.txt && git commit -qm "agent: side" &&
	    git tag t1 && git checkout -q - && echo m >> b && git commit -qam "agent: b" && h=$(git rev-parse HEAD) &&
	    d=$(git rev-parse --git-dir) && echo $h > "$d/refs/heads/x..y" && echo $h > "$d/refs/heads/$(printf "e\033x")"'
	br=$(branch); id=${br#corral/}
	like "$err" "corral: git: its other branches and tags \\(new or moved\\), each checked like HEAD: corral/$id-side, tags/corral/$id/t1" \
	    "$who: its branch and tag grown from your state are imported (before: \"it grew from your uncommitted state\")"
	is "$(G rev-parse "corral/$id-side~1"):$(G diff --name-only "$head1" "corral/$id-side" | tr '\n' ' '):$(G log --format=%s -1 "corral/$id-side")" \
	    "$head1:side.txt :agent: side" "$who: ... carried onto your HEAD, holding only its change"
	is "$(G rev-parse "corral/$id/t1^{commit}")" "$(G rev-parse "corral/$id-side")" "$who: ... the tag names the carried commit"
	is "$(G diff --name-only "$head1" "$br" | tr '\n' ' ')" "b " "$who: control: its main branch holds only its change too"
	like "$err" "corral: warning: git: 2 of its other refs were not imported: 2 ref files with a name git refuses, not a regular file, or malformed; they stay in" \
	    "$who: two ref names git refuses (x..y, an escape byte): not imported, counted, not printed"
	is "$(G for-each-ref --format='%(refname)' refs/heads/corral/ | grep -c "x\\.\\.y\\|$(printf '\033')")" 0 "$who: ... no ref made for them"
	is "$(G cat-file --batch-all-objects --batch | grep -c "s3cr3t-$who")" 0 "$who: ... and your untracked secret is still in no object"

	# a no-op run with local changes and untracked files makes no branch
	n0=$(nbranch)
	run R -- true
	is "$rc:$(nbranch)" "0:$n0" "$who: a run that changed nothing makes no branch"
	like "$err" "corral: git: the agent changed nothing: no branch made" "$who: ... and says so"

	# your installed dependencies, read-only
	mkdir -p "$W/node_modules" && cp -r "$LP/left-pad" "$W/node_modules/"
	/usr/bin/python3 -m venv --without-pip --system-site-packages "$W/.venv"
	sp=$(ls -d "$W"/.venv/lib/python3*/site-packages)
	echo 'def pad(s): return "  " + s' > "$sp/mypad.py"
	[ "$who" != root ] && chown -R nobody:nogroup "$W/node_modules" "$W/.venv"
	run R -- sh -c 'npm test 2>&1 | grep npm-test-ok; PYTHONDONTWRITEBYTECODE=1 .venv/bin/python -m pytest -q -p no:cacheprovider 2>&1 | tail -1;
	    (echo x > node_modules/left-pad/x) 2>&1; (echo y > .venv/y) 2>&1; true'
	like "$out" "npm-test-ok" "$who: npm test uses your node_modules"
	like "$out" "1 passed" "$who: python -m pytest uses your .venv"
	like "$out" "node_modules/left-pad/x: Permission denied" "$who: a write into node_modules is refused"
	like "$out" ".venv/y: Permission denied" "$who: ... and into .venv"
	status_ok "$([ ! -e "$W/node_modules/left-pad/x" ] && [ ! -e "$W/.venv/y" ]; echo $?)" "$who: ... your directories unchanged"
	like "$err" "corral: git: node_modules: your installed dependencies, linked read-only" "$who: the start names the links"
	printf '{"git_deps": ["-*"]}' > "$B/nodeps.json"; [ "$who" != root ] && chown nobody "$B/nodeps.json"
	run R -p "$B/nodeps.json" -- sh -c 'npm test 2>&1 | grep -c "Cannot find module"'
	is "$out" 1 "$who: control: with \"git_deps\": [\"-*\"] npm test cannot find left-pad"
	# "git_deps" adds to the default's: one more directory, one taken away
	mkdir -p "$W/tools" && echo tool-$who > "$W/tools/t"; [ "$who" != root ] && chown -R nobody "$W/tools"
	run R -- sh -c 'cat tools/t 2>&1; true'
	like "$out" "tools/t: No such file" "$who: control: tools/ (ignored) is not in the agent's checkout by default"
	printf '{"git_deps": ["tools", "-.venv"]}' > "$B/deps.json"; [ "$who" != root ] && chown nobody "$B/deps.json"
	run R -p "$B/deps.json" -- sh -c 'cat tools/t; npm test 2>&1 | grep npm-test-ok; ls -d .venv 2>&1; (echo w > tools/w) 2>&1; true'
	like "$out" "^tool-$who" "$who: \"git_deps\": [\"tools\"] links tools/"
	like "$out" "npm-test-ok" "$who: ... beside the default's node_modules"
	like "$out" "access '.venv': No such file" "$who: ... and \"-.venv\" takes .venv away"
	like "$out" "tools/w: Permission denied" "$who: ... read-only"
	run R -- sh -c 'rm node_modules && mkdir -p node_modules/own && echo o > node_modules/own/i.js && echo z >> b'
	like "$err" "corral: git: node_modules: the agent put its own install in place of your linked dependencies" "$who: its own install is named"
	br=$(branch)
	is "$(G diff --name-only "$head1" "$br" | tr '\n' ' ')" "b " "$who: ... and not imported"

	# corral branches and --prune
	run CC branches
	is "$rc" 0 "$who: corral branches runs"
	like "$out" "corral/[0-9a-f]{8} +[0-9-]+ [0-9:]+  attempt [0-9a-f]{32}  1 commit, 1 file changed, 1 insertion\\(\\+\\)  merged" "$who: ... the merged one, with attempt, date and size"
	like "$out" "  not merged" "$who: ... and those not merged"
	nm=$(printf '%s\n' "$out" | grep -c 'not merged')
	run CC branches --prune
	like "$out" "^removed corral/[0-9a-f]{8} \\(merged\\)" "$who: --prune removes the merged one"
	is "$(nbranch)" "$nm" "$who: ... and only it"

	# an empty repository, with an untracked file of the user's
	M=$B/empty; mkdir -p "$M"; (cd "$M" && git init -q -b main && echo "N0TES-$who" > notes.txt)
	[ "$who" != root ] && chown -R nobody:nogroup "$M"
	run sh -c "cd '$M' && $AS $X $E timeout 120 '$C' run -- sh -c 'echo hi > hello && git add hello && git commit -qm first'"
	is "$rc" 0 "$who: an empty repository: the run works"
	like "$err" "review: git log -p corral/[0-9a-f]{8};" "$who: ... the review line names no HEAD"
	rv=$(printf '%s\n' "$err" | sed -n 's/.*review: \(git log -p corral\/[0-9a-f]*\);.*/\1/p')
	run sh -c "cd '$M' && $AS $E $rv"
	like "$rc:$out" "^0:commit [0-9a-f]+" "$who: ... and works"
	like "$out" "^    first\$" "$who: ... showing its commit"
	mb=$($AS env -i HOME=$H PATH=/usr/bin:/bin git -C "$M" for-each-ref --format='%(refname:short)' refs/heads/corral/)
	is "$($AS git -C "$M" ls-tree --name-only "$mb")" hello "$who: ... the branch holds its file, not yours"
	run sh -c "cd '$M' && $AS $E '$C' apply '$mb'"
	is "$rc:$(cat "$M/hello"):$(cat "$M/notes.txt")" "0:hi:N0TES-$who" "$who: ... corral apply brings it in"

	# --in-place says the changes are in your tree (where a namespace can be had)
	if [ -z "$X" ]; then
		run R --in-place -- sh -c 'echo ip >> b'
		like "$err" "corral: git: branch corral/[0-9a-f]{8}: .*its changes are already in your working tree \\(uncommitted\\), so there is nothing to merge" "$who: --in-place says its changes are in your tree"
		unlike "$err" "merge: git merge" "$who: ... and prints no merge command"
	fi
}

suite root ""
suite nobody ""
suite nobody-nons "$NS"
done_testing
