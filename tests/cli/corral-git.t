#!/bin/sh
# corral run in a git workspace: the agent never writes the real repository,
# works without namespaces, and its work comes back as data. Every attack of
# issue 10 (crafted index entries, a gitlink whose repository sets
# core.fsmonitor, FIFOs in refs, logs and objects, split-index, long names
# in the .git root, rm -rf .git; an attempt repository stuffed with every
# command-valued setting and hook), each with a control that shows its
# payload live; then the user's merge and everyday git, under timeout. As
# root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
NS=$T/helpers/nonamespace
BADIDX=$CORRAL_TOP/tests/helpers/git-badindex.py

# the agent's payload: every command-valued key and hook runs $P, which
# leaves a mark in $B/pwned (outside the boundary: only a run outside can)
hostile_script() {	# hostile_script B
	cat <<EOS
set -u
T0=\$PWD
# the honest commit
echo honest > honest.txt && git add honest.txt && git -c core.hooksPath=/dev/null commit -qm "agent: honest"
# a gitlink whose repository runs \$P on git status
mkdir -p vendor/lib && (cd vendor/lib && git init -q && git config core.fsmonitor "\$T0/.git/p.sh" &&
    echo v > v && git add v && git -c core.hooksPath=/dev/null commit -qm v)
git -c core.hooksPath=/dev/null add vendor/lib 2>/dev/null
git -c core.hooksPath=/dev/null commit -qm "agent: vendor"
P=\$PWD/.git/p.sh
printf '#!/bin/sh\necho "\$0 \$*" >> $1/pwned\n' > "\$P"; chmod +x "\$P"
for h in post-checkout post-merge reference-transaction pre-commit post-commit post-index-change; do
	cp "\$P" .git/hooks/\$h
done
for k in core.fsmonitor core.sshCommand core.pager core.hooksPath core.alternateRefsCommand \\
    uploadpack.packObjectsHook filter.evil.clean filter.evil.smudge filter.evil.process \\
    diff.evil.textconv diff.evil.command diff.external core.editor sequence.editor \\
    credential.helper core.askPass gpg.program; do
	git config "\$k" "\$P"
done
git config filter.evil.required true
printf '* filter=evil diff=evil\n' > .git/info/attributes
printf '* filter=evil diff=evil\n' > .gitattributes
# FIFOs where git reads: refs, logs, objects, the tree
mkfifo .git/refs/heads/fifo .git/logs/refs/heads/fifo .git/objects/ab .git/packed-refs.new fifo-in-tree
mkdir -p .git/objects/cd && mkfifo .git/objects/cd/0123456789012345678901234567890123456789
# split index; a long name in the .git root
git update-index --split-index 2>/dev/null
touch .git/\$(printf 'n%.0s' \$(seq 1 120))
# crafted index entries git would never write
b=\$(git hash-object -w --no-filters "\$P")
python3 ./git-badindex.py .git/index "\$b" .git/hooks/post-checkout ../../../x honest.txt
echo uncommitted > left.txt
exit 0
EOS
}

suite() {	# suite WHO AS
	who=$1 AS=$2
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/d1/d2/repo
	ST=$H/.local/state/corral
	mkdir -p "$H" "$W"
	printf '[user]\n\tname = Agent\n\temail = agent@example.com\n' > "$H/.gitconfig"
	G() { $AS env -i HOME=$H PATH=/usr/bin:/bin timeout 20 git -C "$W" "$@"; }
	(cd "$W" && git init -q -b main && echo one > a && git add a &&
	    git -c user.name=U -c user.email=u@x commit -qm init && echo two >> a &&
	    git -c user.name=U -c user.email=u@x commit -qam second)
	cp "$BADIDX" "$W/git-badindex.py"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C"
	R() { (cd "$W" && $AS $E timeout 120 "$C" run "$@"); }
	head0=$(G rev-parse HEAD)

	# a clean session: edit, commit twice, leave one change uncommitted
	run R -- sh -c 'echo 3 >> a && git commit -qam "agent: 3" && echo 4 >> a && git commit -qam "agent: 4" && echo 5 >> a'
	is "$rc" 0 "$who: a clean session runs"
	like "$err" "corral: git: worktree: the agent works in $ST/git/co/[0-9a-f]{16}\\.0/repo, a checkout of its own" "$who: one line at the start names the mode"
	like "$err" "corral: git: branch corral/[0-9a-f]{8}: 3 commits \\(the last holds what it left uncommitted\\), [0-9]+ files? changed.*merge: git merge corral/" "$who: one line at the end: branch, commits, files, how to merge"
	br=$(G for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1)
	like "$(G log --format=%s "$br" | head -3 | tr '\n' '|')" "^corral: the changes attempt [0-9a-f]{32} left uncommitted\\|agent: 4\\|agent: 3\\|$" "$who: the branch holds both commits and the uncommitted change"
	is "$(G show "$br:a" | tr '\n' ' ')" "one two 3 4 5 " "$who: ... with every line"
	is "$(G rev-parse HEAD):$(cat "$W/a" | tr '\n' ' ')" "$head0:one two " "$who: the user's HEAD and files are untouched"
	i=0; while [ -n "$(ls -A "$ST/git/trash" 2>/dev/null)" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	is "$(ls "$ST/git" | grep -c '^[0-9a-f]\{32\}$'):$(ls -A "$ST"/git/co/*.0 "$ST/git/trash" | grep -vc ':$\|^$'):$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" "0:0:0" "$who: nothing lingers in the state directory (the checkout removed after corral returned)"
	G branch -q -D "$br"

	# the controls: the payload is live when git outside meets it
	rm -f "$B/pwned"
	$AS env -i HOME=$H PATH=/usr/bin:/bin sh -c "mkdir -p '$B/c1/c2/ctl' && cd '$B/c1/c2/ctl' && git init -q && git config user.name u && git config user.email u@x &&
	    cp '$W/git-badindex.py' . && sh -s" <<EOS >/dev/null 2>&1
$(hostile_script "$B")
EOS
	$AS env -i HOME=$H PATH=/usr/bin:/bin sh -c "cd '$B/c1/c2/ctl' && rm -f fifo-in-tree .git/refs/heads/fifo .git/logs/refs/heads/fifo .git/objects/ab .git/objects/cd/0* .git/packed-refs.new && timeout 20 git status >/dev/null 2>&1; timeout 20 git -c filter.evil.process= -c filter.evil.required=false checkout-index -a -f 2>/dev/null; timeout 20 git checkout -q -b y 2>/dev/null" </dev/null
	status_ok "$([ -s "$B/pwned" ]; echo $?)" "$who: control: the same repository run by git outside runs the agent's code"
	status_ok "$([ -e "$B/x" ]; echo $?)" "$who: control: ... and its crafted index makes git write outside the repository"
	rm -rf "$B/c1" "$B/x" "$B/pwned"

	# the combined hostile run, with the user's git status looping beside it
	hostile_script "$B" > "$W/hostile.sh"
	[ "$who" = nobody ] && chown nobody "$W/hostile.sh"
	rm -f "$B/stop"
	( while [ ! -e "$B/stop" ]; do G status >/dev/null 2>&1; G log --all -1 >/dev/null 2>&1; done ) &
	loop=$!
	run R -- sh hostile.sh
	touch "$B/stop"; wait $loop
	is "$rc" 0 "$who: the hostile run ends"
	like "$err" "corral: warning: git: [0-9]+ nested repositories or special files were moved aside" "$who: the nested repository and the FIFO are reported"
	like "$err" "corral: git: branch corral/[0-9a-f]{8}: 3 commits" "$who: its work is imported"
	br=$(G for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1)
	q=$(ls -d "$ST"/git/*/quarantine 2>/dev/null | head -1)
	like "$(cat "$q/LIST" 2>/dev/null | cut -f2 | sort | tr '\n' ' ')" "^fifo-in-tree vendor/lib/.git $" "$who: quarantined: the FIFO and vendor/lib/.git, never imported"
	is "$(G ls-tree "$br" vendor/lib | cut -c1-14)" "160000 commit " "$who: the gitlink came back as a commit id only"
	status_ok "$([ ! -e "$B/pwned" ]; echo $?)" "$who: nothing of the agent ran during the run or the import (user's git status loop included)"

	# the user merges, then uses git as usual: nothing runs, nothing hangs
	rm -f "$W/hostile.sh" "$W/git-badindex.py"	# untracked here, in the branch too
	run G -c user.name=U -c user.email=u@x merge -q --no-edit "$br"
	is "$rc" 0 "$who: the user merges the agent's branch"
	for c in "status" "diff" "restore ." "checkout-index -a -f" "checkout -q -b x" "log --all --oneline" "gc -q"; do
		G -c user.name=U -c user.email=u@x $c >/dev/null 2>&1
		r=$?
		status_ok "$([ $r -ne 124 ] && [ $r -lt 128 ]; echo $?)" "$who: git $c: no hang, no crash (status $r)"
	done
	status_ok "$([ ! -e "$B/pwned" ]; echo $?)" "$who: no agent code ran in the user's git"
	status_ok "$([ ! -e "$W/.git/hooks/post-checkout" ] && [ ! -e "$B/x" ] && [ ! -e "$B/d1/x" ] && [ ! -e "$TMP/x" ]; echo $?)" "$who: no file outside the repository, no hook planted"
	like "$(G log --format=%s --all | tr '\n' '|')" "agent: honest.*second\\|init" "$who: the honest commit is reachable, the original history intact"
	is "$(G cat-file -t "$head0")" commit "$who: ... the original commits still there"
	run G fsck --no-progress
	is "$rc" 0 "$who: the real repository passes git fsck"
	status_ok "$(! grep -qi evil "$W/.git/config"; echo $?)" "$who: the real config is untouched"
	G checkout -q main 2>/dev/null; G reset -q --hard "$head0"; G clean -qfdx; cp "$BADIDX" "$W/git-badindex.py"
	G branch -q -D x "$br"

	# HEAD at a FIFO: refused without a hang, the files still come back
	run R -- sh -c 'echo f > ff && rm -f .git/refs/heads/main && mkfifo .git/refs/heads/main'
	is "$rc" 0 "$who: HEAD naming a FIFO: the run ends"
	like "$err" "corral: warning: git: the attempt repository's refs/heads/main is not a regular ref file" "$who: ... its commits refused, said so"
	br=$(G for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1)
	is "$(G show "$br:ff")" f "$who: ... its files imported"
	G branch -q -D "$br"

	# rm -rf .git inside
	run R -- sh -c 'rm -rf .git && echo g > gone'
	is "$rc" 0 "$who: rm -rf .git: the run ends"
	like "$err" "the attempt repository is gone" "$who: ... said so"
	br=$(G for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1)
	is "$(G show "$br:gone"):$(G rev-parse main)" "g:$head0" "$who: ... its files imported, the real history intact"
	run G fsck --no-progress
	is "$rc" 0 "$who: ... the real objects intact"
	G branch -q -D "$br"

	# a long name in the real .git root: later runs still work
	touch "$W/.git/$(printf 'L%.0s' $(seq 1 200))"
	run R -- true
	is "$rc" 0 "$who: a 200-byte name in the .git root: the run works"
	run R -- true
	is "$rc" 0 "$who: ... and the next one"

	# no namespaces (Ubuntu 24.04, Docker): worktree works, in-place refuses
	AS0=; [ "$who" = nobody ] && AS0="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
	run sh -c "cd '$W' && $AS0 $NS $E '$C' run -- sh -c 'echo ns > ns && git add ns && git commit -qm ns && echo ok'"
	is "$rc:$out" "0:ok" "$who: no namespaces: worktree mode works"
	like "$err" "corral: git: branch corral/" "$who: ... and its work comes back"
	run sh -c "cd '$W' && $AS0 $NS $E '$C' run --in-place -- true"
	is "$rc:$err" "125:corral: fatal: --in-place needs a private mount namespace, and this machine refuses one (user namespaces off, or a container): nothing was started
corral: hint: use --worktree (the default): the agent gets a checkout of its own and needs no namespace" "$who: no namespaces: in-place refuses, naming worktree"
	run R --in-place -- sh -c 'echo ip >> a; echo hook > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout; git commit -qam ip; mkdir -p sub && cd sub && git init -q && git config core.fsmonitor /bin/false'
	is "$rc" 0 "$who: control: in-place works where a mount namespace can be had"
	status_ok "$([ ! -e "$W/.git/hooks/post-checkout" ] && [ ! -e "$W/sub/.git" ]; echo $?)" "$who: in-place: the real .git untouched, the new nested repository moved aside"
	like "$(G log --format=%s --branches='corral/*' | tr '\n' '|')" "ip" "$who: in-place: the commit came back"

	# a repository whose one commit is empty: the agent's checkout has no
	# file (corral crashed on its first new file in the import, 139)
	EW=$B/empty
	mkdir -p "$EW" && (cd "$EW" && git init -q -b main && git -c user.name=U -c user.email=u@x commit -q --allow-empty -m init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$EW"
	RE() { (cd "$EW" && $AS $E timeout 120 "$C" run "$@"); }
	run RE -- sh -c 'echo x > f && git add f && git commit -qm agent-f'
	is "$rc" 0 "$who: a repository with only an empty commit: the run ends 0"
	is "$(git -c safe.directory='*' -C "$EW" log --format=%s --branches='corral/*' | head -1)" "agent-f" "$who: ... and the agent's first file comes back"
}

suite root ""
suite nobody as_nobody
done_testing
