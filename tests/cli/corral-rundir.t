#!/bin/sh
# The attempt's transient tree (its home, config, tmp) on the user's tmpfs:
# $XDG_RUNTIME_DIR/corral/aNONCE when XDG_RUNTIME_DIR is a directory of the
# user's own, mode 0700, on tmpfs; the audit log and the attempt's record
# stay in the store. Controls: a runtime directory on a disk, or open to
# others, leaves the tree in the store as before. Trees of two stores share
# one runtime directory and each store reaps only its own. As root and
# as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
SS=$CORRAL_BIN/session-store
HS=$CORRAL_BIN/home-stage
[ "$(stat -f -c %T /dev/shm)" = tmpfs ] || { echo "1..0 # SKIP /dev/shm is not a tmpfs here"; exit 0; }
SHM=$(mktemp -d /dev/shm/crd.XXXXXX)	# short: RT/corral is at most 40 bytes
chmod 0755 "$SHM"
trap 'rm -rf "$TMP" "$SHM"' EXIT

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$B/home W=$B/ws RT=$SHM/${who%"${who#?}"} DISK=$B/rt
	LONG=$SHM/$who-a-runtime-directory-too-long-for-sockets
	ST=$H/.local/state/corral
	mkdir -p "$H/.claude" "$W" "$RT" "$DISK" "$LONG"
	chmod 0700 "$H" "$RT" "$DISK" "$LONG"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B" "$RT" "$LONG"
	R() {	# R RUNTIME_DIR CMD...
		rt=$1; shift
		(cd "$W" && $AS env -i HOME="$H" PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$rt" "$C" run "$@")
	}

	run R "$RT" -- sh -c 'echo "$HOME"; echo "$TMPDIR"; echo x > "$TMPDIR/f"'
	status_ok "$rc" "$who: a run with the runtime directory on tmpfs"
	home=$(echo "$out" | sed -n 1p)
	like "$home" "^$RT/corral/a[0-9a-f]{10}/home\$" "$who: its home is on the runtime tmpfs"
	like "$(echo "$out" | sed -n 2p)" "^$RT/corral/a[0-9a-f]{10}/tmp\$" "$who: its tmp too"
	is "$(ls -A "$RT/corral")" "" "$who: the tree is removed after the run"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: no tree in the store"
	is "$(ls "$ST/audit" | grep -c '\.jsonl$')" 1 "$who: the audit log is in the store"
	id=$(ls "$ST/audit" | sed 's/\.jsonl$//')
	like "$(cat "$ST/attempts/$id")" '"status":0' "$who: the attempt's record and result are in the store"
	grep -q "\"dir\":\"$RT/corral/a" "$ST/audit/$id.jsonl"
	status_ok $? "$who: the audit log names the tree where it was"

	# controls: on a disk, or not 0700: the store, as before
	run R "$DISK" -- sh -c 'echo "$HOME"'
	like "$out" "^$ST/a[0-9a-f]{10}/home\$" "$who: control: a runtime directory on a disk: the tree in the store"
	chmod 0755 "$RT"
	run R "$RT" -- sh -c 'echo "$HOME"'
	like "$out" "^$ST/a[0-9a-f]{10}/home\$" "$who: control: a runtime directory open to others: the tree in the store"
	chmod 0700 "$RT"
	run R "" -- sh -c 'echo "$HOME"'
	like "$out" "^$ST/a[0-9a-f]{10}/home\$" "$who: control: no XDG_RUNTIME_DIR: the tree in the store"
	run R "$LONG" -- sh -c 'echo "$HOME"'
	like "$out" "^$ST/a[0-9a-f]{10}/home\$" "$who: control: a runtime directory too long for a socket in the home: the store"

	# explain and doctor say where
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH=/usr/bin:/bin XDG_RUNTIME_DIR='$RT' '$C' explain -- /bin/true"
	like "$out" "home-stage create --state $ST .*--begin .*--trees $RT/corral" "$who: explain: create makes the tree on the runtime tmpfs, and reaps the trees there too (--begin)"
	like "$out" "home-stage finish --state $ST " "$who: explain: finish takes back into the store"
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH=/usr/bin:/bin XDG_RUNTIME_DIR='$RT' '$C' doctor"
	like "$out" "private home and tmp +$RT/corral/aNONCE" "$who: doctor names the runtime directory"

	# leftovers: a tree of a dead attempt is reaped at the next begin; a
	# tree of another store in the same runtime directory is not
	S2=$B/other
	sh -c 'exit 0' & dead=$!; wait $dead
	for s in "$ST" "$S2"; do
		i=$($AS "$SS" --store "$s" begin --agent claude --pid $$)
		echo "$i" > "$B/id.$(basename "$s")"
		# its process gone (begin takes only a live one: the record says so after)
		sed "s/\"pid\":[0-9]*/\"pid\":$dead/" "$s/attempts/$i" > "$B/rec" && cat "$B/rec" > "$s/attempts/$i"
		(cd "$W" && $AS env -i HOME="$H" "$HS" create --state "$s" --trees "$RT/corral" --attempt "$i" \
		    --agent claude --full-setup >/dev/null)
	done
	is "$(ls "$RT/corral" | wc -l)" 2 "$who: two trees of dead attempts, one per store"
	run R "$RT" -- /bin/true
	is "$(ls "$RT/corral" | wc -l)" 1 "$who: the next run reaps its own store's"
	is "$(cat "$RT/corral"/a*/id)" "$(cat "$B/id.other")" "$who: the other store's stays"
	run $AS "$SS" --store "$S2" reap --older-than 0 --trees "$RT/corral"
	status_ok "$rc" "$who: the other store's reap"
	is "$(ls -A "$RT/corral")" "" "$who: removes its own"
}

suite root
suite nobody
done_testing
