#!/bin/sh
# corral explain prints what corral run executes: the printed script, run
# by hand with sh outside a git repository, gives what corral run gives
# (status, output, no process left), with limits through keeper's options
# (the wall clock's 124 included); the attempt is opened and closed the
# same way. In a git repository too: git-stage create and finish are in the
# script, which gives the same output, a corral/ branch and the user's
# checkout untouched; the user's installed dependencies (git_deps) linked
# in and granted read and execute the same way (the script reads create's
# "dep" lines); in-place (--in-place) the same. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
tag=$$

# git as the test (root) in a repository nobody owns
Gs() { git -c safe.directory='*' "$@"; }
alive() { pgrep -f -- "$1" >/dev/null; }
gone() {
	i=0
	while alive "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	! alive "$1"
}

suite() {
	who=$1 wn=$2
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws"
	echo '{"limits": {"wall_seconds": 2, "open_files": 64}}' > "$B/wall.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	# both ways, from the workspace: corral run, and explain's script with sh
	W=$B/ws
	viarun() { (cd "$W" && $AS $E timeout 120 "$C" run "$@"); }
	viash() {
		(cd "$W" && $AS $E "$C" explain "$@") > "$B/x.sh" || return 99
		(cd "$W" && $AS $E timeout 120 sh "$B/x.sh")
	}
	ended() { ls "$B/home/.local/state/corral/attempts" 2>/dev/null | wc -l; }

	cmd="echo out-\$((6*7)) \"\$HOME\" | sed 's|/corral/a[^/]*/|/corral/A/|'; echo err-\$((2+3)) >&2; ulimit -n; setsid sleep 4401.$tag$wn >/dev/null 2>&1 & exit 3"
	run viarun -- sh -c "$cmd"
	r_rc=$rc r_out=$out
	like "$err" "^err-5" "$who: control: corral run: the program's stderr"
	status_ok "$(gone "sleep 4401.$tag$wn"; echo $?)" "$who: corral run leaves no process"
	run viash -- sh -c "$cmd"
	is "$rc" "$r_rc" "$who: explain's script run with sh: the same status as corral run ($r_rc)"
	is "$out" "$r_out" "$who: ... the same output (a private home, the open files of this machine)"
	like "$err" "^err-5" "$who: ... the program's stderr"
	status_ok "$(gone "sleep 4401.$tag$wn"; echo $?)" "$who: ... and no process left: keeper ended the detached one"
	like "$(cat "$B/x.sh")" "keeper --pty " "$who: the script runs keeper, with its terminal"

	# limits: keeper's options in the script, the same effect
	cmd="ulimit -n; setsid sleep 4402.$tag$wn >/dev/null 2>&1 & sleep 30; echo slept"
	run viarun -p "$B/wall.json" -- sh -c "$cmd"
	r_rc=$rc r_out=$out
	is "$r_rc:$r_out" "124:64" "$who: control: corral run with wall_seconds 2, open_files 64: 124, 64 open files"
	status_ok "$(gone "sleep 4402.$tag$wn"; echo $?)" "$who: ... nothing left"
	run viash -p "$B/wall.json" -- sh -c "$cmd"
	is "$rc:$out" "$r_rc:$r_out" "$who: the script with the limits: the same status and output"
	status_ok "$(gone "sleep 4402.$tag$wn"; echo $?)" "$who: ... nothing left"
	like "$(cat "$B/x.sh")" "keeper --wall-seconds 2 --open-files 64 --pty " "$who: the limits are keeper's options in the script"
	unlike "$(cat "$B/x.sh")" "^# limit " "$who: no limit is a comment only"

	# a git repository (worktree mode): the script runs git-stage create and
	# finish as corral run does; the same agent output, a corral/ branch
	# each, the user's checkout untouched, no process left
	G=$B/repo
	mkdir -p "$G/sub"
	(cd "$G" && git init -q && echo one > a && echo keep > sub/k && git add a sub/k &&
	    git -c user.name=t -c user.email=t@t commit -q -m init && echo local >> a && echo u > untracked)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$G"
	state0=$(cd "$G" && Gs status --porcelain && Gs rev-parse HEAD && cat a untracked)
	gcmd="echo made > new-\$\$.txt; pwd | sed 's|.*/||'; cat ../a; setsid sleep 4403.$tag$wn >/dev/null 2>&1 & exit 4"
	gbr() { (cd "$G" && Gs for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | wc -l); }
	run sh -c "cd '$G/sub' && $AS $E timeout 120 '$C' run -- sh -c \"$gcmd\""
	r_rc=$rc r_out=$out
	is "$r_rc:$r_out" "4:sub
one
local" "$who: control: corral run in a git repository: its status and output (in its checkout, from sub)"
	is "$(gbr)" 1 "$who: ... a corral/ branch"
	is "$(cd "$G" && Gs status --porcelain && Gs rev-parse HEAD && cat a untracked)" "$state0" "$who: ... the user's checkout untouched"
	status_ok "$(gone "sleep 4403.$tag$wn"; echo $?)" "$who: ... no process left"
	run sh -c "cd '$G/sub' && $AS $E $C explain -- sh -c \"$gcmd\" > $B/g.sh"
	is "$rc" 0 "$who: explain in a git repository"
	like "$(cat "$B/g.sh")" "git-stage create --name corral " "$who: ... the script runs git-stage create"
	like "$(cat "$B/g.sh")" "git-stage finish --name corral " "$who: ... and git-stage finish"
	unlike "$(cat "$B/g.sh")" "not runnable" "$who: ... and says nothing of not being runnable"
	run sh -c "cd '$G/sub' && $AS $E timeout 120 sh $B/g.sh"
	is "$rc:$out" "$r_rc:$r_out" "$who: explain's script in a git repository: the same status and output as corral run"
	like "$err" "corral: git: branch corral/" "$who: ... the same line about the branch"
	is "$(gbr)" 2 "$who: ... a corral/ branch of its own"
	br=$(cd "$G" && Gs for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | tail -1)
	like "$(cd "$G" && Gs show --stat "$br")" "sub/new-" "$who: ... holding the agent's file"
	is "$(cd "$G" && Gs status --porcelain && Gs rev-parse HEAD && cat a untracked)" "$state0" "$who: ... the user's checkout untouched"
	status_ok "$(gone "sleep 4403.$tag$wn"; echo $?)" "$who: ... no process left"
	status_ok "$(gone "git-stage create.*$G"; echo $?)" "$who: ... not even the holder of its checkout"
	is "$(ls "$B/home/.local/state/corral/git" | grep -cv '^co$\|^trash$')" 0 "$who: ... and no attempt left in the store"

	# the user's installed dependencies (git_deps: an ignored node_modules,
	# a package whose name holds a space and a quote): linked into the
	# checkout, read and execute only; the script takes confine's grants
	# from create's "dep" lines. Control: without node_modules, the same
	W=$B/deps
	mkdir -p "$W/node_modules/p q'x/bin"
	(cd "$W" && git init -q && echo node_modules > .gitignore && git add .gitignore &&
	    git -c user.name=t -c user.email=t@t commit -q -m init)
	echo 'module.exports = 42' > "$W/node_modules/p q'x/index.js"
	printf '#!/bin/sh\necho dep-ran\n' > "$W/node_modules/p q'x/bin/run"
	chmod 755 "$W/node_modules/p q'x/bin/run"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$W"
	dcmd='for f in node_modules/*/index.js; do cat "$f" || echo unread; (echo x >> "$f") 2>/dev/null && echo wrote || echo read-only; done
for f in node_modules/*/bin/run; do "$f" || echo unrun; done; exit 6'
	run viarun -- sh -c "$dcmd"
	r_rc=$rc r_out=$out
	is "$r_rc:$r_out" "6:module.exports = 42
read-only
dep-ran" "$who: control: corral run with node_modules: the agent reads and runs the dependency, and cannot write it"
	like "$err" "git: node_modules: your installed dependencies, linked read-only" "$who: ... linked in"
	run viash -- sh -c "$dcmd"
	is "$rc:$out" "$r_rc:$r_out" "$who: explain's script with node_modules: the same status and output"
	like "$(cat "$B/x.sh")" ' -W "\$GIT_WORK" "\$@" ' "$who: ... confine's dependency grants are the script's \"\$@\""
	like "$(cat "$B/x.sh")" 'set -- "\$@" -x ' "$who: ... set from create's dep lines, one -x each"
	unlike "$(cat "$B/x.sh")" 'eval "\$GIT' "$who: ... never eval'd"
	is "$(cat "$W/node_modules/p q'x/index.js")" "module.exports = 42" "$who: ... the dependency unchanged"
	rm -rf "$W/node_modules"
	run viarun -- sh -c "$dcmd"
	r_rc=$rc r_out=$out
	is "$r_rc:$r_out" "6:unread
read-only
unrun" "$who: control: corral run without node_modules: nothing to read or run"
	run viash -- sh -c "$dcmd"
	is "$rc:$out" "$r_rc:$r_out" "$who: ... explain's script: the same"

	# in-place: the attempt repository over .git in a private mount
	# namespace (refused where there is none: then both must refuse)
	W=$B/inplace
	mkdir -p "$W"
	(cd "$W" && git init -q && echo one > a && git add a && git -c user.name=t -c user.email=t@t commit -q -m init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$W"
	head0=$(cd "$W" && Gs rev-parse HEAD)
	pcmd='echo made > new.txt; cat a; git status --short; git rev-parse --abbrev-ref HEAD; exit 5'
	pbr() { (cd "$W" && Gs for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | wc -l); }
	run viarun --in-place -- sh -c "$pcmd"
	r_rc=$rc r_out=$out
	if echo "$err" | grep -q "needs a private mount namespace"; then
		skip "$who: corral run --in-place refused (no mount namespace here): the script must refuse the same way"
	else
		is "$r_rc:$r_out" "5:one
?? new.txt
master" "$who: control: corral run --in-place: the agent works in the workspace over a private repository"
		is "$(pbr)" 1 "$who: ... a corral/ branch"
	fi
	rm -f "$W/new.txt"
	run viash --in-place -- sh -c "$pcmd"
	is "$rc:$out" "$r_rc:$r_out" "$who: explain's script in-place: the same status and output as corral run"
	like "$(cat "$B/x.sh")" "git-stage create --name corral .* --in-place " "$who: ... the script runs git-stage create --in-place"
	like "$(cat "$B/x.sh")" "confine .* --mount " "$who: ... and confine lays the attempt repository over .git"
	if [ "$r_rc" = 5 ]; then
		is "$(pbr)" 2 "$who: ... a corral/ branch of its own"
		br=$(cd "$W" && Gs for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | tail -1)
		like "$(cd "$W" && Gs show --stat "$br")" "new.txt" "$who: ... holding the agent's file"
	fi
	rm -f "$W/new.txt"
	is "$(cd "$W" && Gs rev-parse HEAD && Gs status --porcelain)" "$head0" "$who: ... the user's HEAD and index untouched"
	status_ok "$(gone "git-stage create.*$W"; echo $?)" "$who: ... no holder left"
}

suite root 1
suite nobody 2
done_testing
