#!/bin/sh
# A grant or workspace checked and then opened by name can be raced: attempt
# A's agent exchanges a directory of its attempt directory with a link to the home
# (renameat2 RENAME_EXCHANGE, tests/helpers/swapper) while attempt B, which
# was granted that directory (read grant, or -w DIR), starts. corral resolves
# each grant once without following a link the boundary can write, and
# confine opens that resolution with openat2 RESOLVE_NO_SYMLINKS and checks
# what it opened: B either runs on the real directory or is refused (125),
# never on the home, and its agent starts in what was granted. RACE_TRIES tries per case (200; the build before the fix
# read the key in 62/200 tries as root and 56/200 as nobody, and wrote into
# the home in 38/200 and 39/200), as root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
SW=$T/helpers/swapper
N=${RACE_TRIES:-200}
apid=

cleanup() {
	[ -n "$apid" ] && { touch "$WA/STOP"; kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null; }
	rm -rf "$TMP"
}
trap cleanup EXIT

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home WA=$TMP/$who/wa WB=$TMP/$who/wb
	CFG=$H/.config/corral
	mkdir -p "$H/.ssh" "$CFG" "$WA" "$WB"
	echo "SSH-PRIVATE-KEY-$who" > "$H/.ssh/id_ed25519"
	printf '{"exec": ["/usr", "/bin", "/lib*", "/sbin", "/etc", "%s"]}\n' "$T/helpers" > "$CFG/a.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H" "$H/.ssh"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C.UTF-8"

	# attempt A: its agent makes, in its own attempt directory, a
	# directory and a link to the home for each case, then (once told)
	# exchanges each pair until told to stop
	rm -f "$WA/GO" "$WA/STOP"
	(cd "$WA" && $AS $E "$C" run -p "$CFG/a.json" -- sh -c '
		cd "$TMPDIR" && mkdir sub w && echo granted > sub/file &&
		ln -s "$1/.ssh" lnk && ln -s "$1/.ssh" wl && pwd > "$2/at" &&
		while [ ! -e "$2/GO" ]; do sleep 0.1; done &&
		exec "$3" "$2/STOP" 900 sub lnk w wl' sh "$H" "$WA" "$SW") >"$B/a.out" 2>&1 &
	apid=$!
	k=0
	while [ ! -s "$WA/at" ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
	AT=$(cat "$WA/at")
	like "$AT" "^$H/.local/state/corral/a[0-9a-f]{10}/" "$who: A's agent works in its attempt directory"
	printf '{"read": ["%s/sub"]}\n' "$AT" > "$CFG/b.json"
	[ "$who" = nobody ] && chown nobody:nogroup "$CFG/b.json"
	# B: a read grant of A's sub, or -w A's w (a workspace in the store,
	# which home-stage refuses when it is what was checked)
	tryr() {
		(cd "$WB" && $AS $E "$C" run -p "$CFG/b.json" -- sh -c \
		    "cat $H/.ssh/id_ed25519 2>/dev/null; exit 0") >"$B/r" 2>&1
	}
	tryw() {
		rm -f "$H/.ssh/planted"
		(cd "$WB" && $AS $E "$C" run -w "$AT/w" -- sh -c \
		    "echo x > $H/.ssh/planted 2>/dev/null; exit 0") >"$B/r" 2>&1
	}

	# control: before the race, B reads the grant, not the key; -w is
	# refused and writes nothing
	(cd "$WB" && $AS $E "$C" run -p "$CFG/b.json" -- sh -c \
	    "cat $H/.ssh/id_ed25519 2>/dev/null; cat $AT/sub/file") >"$B/r" 2>&1
	is "$?:$(cat "$B/r")" "0:granted" "$who: control: B reads its grant, not the home"
	tryw
	is "$?:$(test -e "$H/.ssh/planted" && echo planted)" "125:" "$who: control: -w DIR in A's attempt directory: 125, nothing written"
	like "$(cat "$B/r")" "state directory .* overlaps the workspace $AT/w" "$who: control: -w DIR: home-stage says why"

	touch "$WA/GO"
	for case in r w; do
		leak=0 ran=0 refused=0 other=0 i=0
		while [ $i -lt "$N" ]; do
			i=$((i + 1))
			try$case
			r=$?
			if [ $case = r ] && grep -q SSH-PRIVATE-KEY "$B/r"; then leak=$((leak + 1))
			elif [ $case = w ] && [ -e "$H/.ssh/planted" ]; then leak=$((leak + 1))
			elif [ $r -eq 0 ]; then ran=$((ran + 1))
			elif [ $r -eq 125 ]; then refused=$((refused + 1))
			else other=$((other + 1)); diag "$who: $case try $i: $r $(head -c 300 "$B/r")"; fi
		done
		if [ $case = r ]; then
			diag "$who: read grant: $N tries: $leak read the home's key, $ran ran, $refused refused (125), $other other"
			is "$leak" 0 "$who: a read grant raced $N times never reaches the home"
		else
			diag "$who: -w DIR: $N tries: $leak wrote into the home, $ran ran, $refused refused (125), $other other"
			is "$leak" 0 "$who: -w DIR raced $N times never writes into the home"
		fi
		is "$other" 0 "$who: $case: every try either ran or was refused (125)"
	done

	touch "$WA/STOP"
	wait "$apid"
	is "$?" 0 "$who: attempt A's swapper ran to the end"
	apid=
	like "$(cat "$B/a.out")" '^[1-9][0-9]*$' "$who: A's agent made exchanges all along"
}

suite root
suite nobody
done_testing
