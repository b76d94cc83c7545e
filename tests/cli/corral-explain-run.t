#!/bin/sh
# corral explain prints what corral run executes: the printed script, run
# by hand with sh outside a git repository, gives what corral run gives
# (status, output, no process left), with limits through keeper's options
# (the wall clock's 124 included); the attempt is opened and closed the
# same way. In a git repository the script says it is not runnable by hand
# and refuses (125). As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
tag=$$

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
	viarun() { (cd "$B/ws" && $AS $E timeout 120 "$C" run "$@"); }
	viash() {
		(cd "$B/ws" && $AS $E "$C" explain "$@") > "$B/x.sh" || return 99
		(cd "$B/ws" && $AS $E timeout 120 sh "$B/x.sh")
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

	# a git repository: the script says it is not runnable by hand, and is not
	G=$B/repo
	mkdir -p "$G"
	(cd "$G" && git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$G"
	run sh -c "cd $G && $AS $E $C explain -- true > $B/g.sh"
	is "$rc" 0 "$who: explain in a git repository"
	like "$(cat "$B/g.sh")" "NOT runnable by hand" "$who: ... the script says it is not runnable by hand"
	run sh -c "cd $G && $AS $E sh $B/g.sh"
	is "$rc:$err" "125:corral explain: this script is not runnable by hand in a git repository" "$who: ... and refuses when run (125), before any step"
}

suite root 1
suite nobody 2
done_testing
