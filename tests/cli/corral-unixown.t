#!/bin/sh
# A pathname unix socket the agent binds in its write grants is its own:
# inside corral run it binds, listens and connects there (its private
# home, as codex's app-server socket under ~/.codex; its tmp; the
# workspace; by a relative path). A socket made outside stays refused with
# EACCES, beside the home and inside the workspace alike, and so does
# another attempt's; outside corral each connects (the controls). Without
# the broker (confine without --own-unix) socket(AF_UNIX) itself is
# refused, as before. As root and nobody, and without namespaces.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
CF=$CORRAL_BIN/confine
UO=$CORRAL_TOP/tests/helpers/unix-own.py
NS=$T/helpers/nonamespace
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; wait $p 2>/dev/null; done; rm -rf "$TMP"' EXIT

# serve PATH: an outside server on PATH, as the caller's user; waits until it listens
serve() {
	$AS /usr/bin/python3 "$UO" serve "$1" > "$1.log" &
	pids="$pids $!"
	i=0; while [ ! -s "$1.log" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws" "$B/out"
	cp "$UO" "$B/ws/uo.py"	# in the workspace: the checkout is not granted
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	cr() { (cd "$B/ws" && $AS $E timeout 60 "$C" run -- "$@"); }

	# (the attempt's home is too deep for a sun_path of 108 bytes: from there)
	run cr sh -c 'mkdir -p "$HOME/.codex/app-server-control" && cd "$HOME/.codex/app-server-control" && /usr/bin/python3 "$OLDPWD/uo.py" own app-server-control.sock'
	is "$rc:$out" "0:ok x" "$who: inside, a socket in its private home (codex's app-server-control.sock)"
	run cr sh -c 'cd "$TMPDIR" && /usr/bin/python3 "$OLDPWD/uo.py" own t.sock'
	is "$rc:$out" "0:ok x" "$who: inside, a socket in its tmp"
	run cr /usr/bin/python3 uo.py own "$B/ws/w.sock"
	is "$rc:$out" "0:ok x" "$who: inside, a socket in the workspace"
	run cr sh -c "rm '$B/ws/w.sock' && /usr/bin/python3 uo.py own '$B/ws/w.sock'"
	is "$rc:$out" "0:ok x" "$who: inside, the same path again in another attempt, the old file removed"
	run cr /usr/bin/python3 uo.py connect "$B/ws/none.sock"
	is "$rc:$out" "0:ENOENT" "$who: inside, a socket that is not there: ENOENT (a client waiting for its server sees it)"

	# made outside: beside the home, and in the workspace (a write grant)
	serve "$B/out/user.sock"
	serve "$B/ws/user.sock"
	for s in "$B/out/user.sock" "$B/ws/user.sock"; do
		run sh -c "$AS /usr/bin/python3 '$UO' connect '$s'"
		is "$out" "ok s" "$who: control: outside corral ${s#$B/} connects"
		run cr /usr/bin/python3 uo.py connect "$s"
		is "$rc:$out" "0:EACCES" "$who: inside, ${s#$B/} made outside is refused (EACCES)"
	done

	# another attempt's: one corral run serves, another connects
	(cd "$B/ws" && $AS $E timeout 60 "$C" run -- /usr/bin/python3 uo.py serve "$B/ws/other.sock" > "$B/other.log" 2>&1) &
	pids="$pids $!"
	i=0; while ! grep -q ready "$B/other.log" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	run sh -c "$AS /usr/bin/python3 '$UO' connect '$B/ws/other.sock'"
	is "$out" "ok s" "$who: control: outside corral another attempt's socket connects"
	run cr /usr/bin/python3 uo.py connect "$B/ws/other.sock"
	is "$rc:$out" "0:EACCES" "$who: inside, another attempt's socket is refused (EACCES)"

	# the broker is what makes them work
	run sh -c "cd '$B/ws' && $AS $E '$CF' -x /usr -x /lib -x /lib64 -r /etc -W '$B/ws' --own-unix -- /usr/bin/python3 uo.py own c.sock"
	is "$rc:$out" "0:ok x" "$who: confine --own-unix: its own socket"
	run sh -c "cd '$B/ws' && $AS $E '$CF' -x /usr -x /lib -x /lib64 -r /etc -W '$B/ws' -- /usr/bin/python3 uo.py own d.sock"
	is "$rc:$out" "0:EACCES" "$who: control: confine without --own-unix refuses socket(AF_UNIX)"

	run sh -c "cd '$B/ws' && $AS $NS $E timeout 60 '$C' run -- /usr/bin/python3 uo.py own ns.sock"
	is "$rc:$out" "0:ok x" "$who: without namespaces, its own socket"
	run sh -c "cd '$B/ws' && $AS $NS $E timeout 60 '$C' run -- /usr/bin/python3 uo.py connect '$B/ws/user.sock'"
	is "$rc:$out" "0:EACCES" "$who: without namespaces, one made outside is refused"
}

suite root
suite nobody
done_testing
