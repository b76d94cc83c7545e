#!/bin/sh
# POSIX shared memory and semaphores the agent creates are its own: inside
# corral run Python's multiprocessing (Pool(2), ProcessPoolExecutor),
# shm_open and sem_open work; confine's broker (--own-shm) creates them in
# /dev/shm and opens and removes only those. An object the user's other
# programs made stays unreadable, unwritable and in place: opened by
# shm_open read-only, read-write, with O_CREAT, by its plain path, and
# shm_unlink, each EACCES inside; outside each works (the controls).
# Without the broker (confine without --own-shm) multiprocessing fails, as
# before. As root and nobody, and without namespaces.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
CF=$CORRAL_BIN/confine
SO=$CORRAL_TOP/tests/helpers/shm-own.py
NS=$T/helpers/nonamespace
made=""
trap 'for n in $made; do rm -f "/dev/shm/$n"; done; rm -rf "$TMP"' EXIT

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws"
	cp "$SO" "$B/ws/so.py"	# in the workspace: the checkout is not granted
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	cr() { (cd "$B/ws" && $AS $E timeout 120 "$C" run -- /usr/bin/python3 so.py "$@"); }
	out() { (cd "$B/ws" && $AS $E timeout 60 /usr/bin/python3 so.py "$@"); }
	n=corral-shm-$$-$who

	run cr mp
	is "$rc:$out" "0:ok 1 4 9 1 4" "$who: inside, multiprocessing Pool(2) and ProcessPoolExecutor(2)"
	run cr own "/$n-own"
	is "$rc:$out" "0:ok 7" "$who: inside, shm_open creates, reopens by name and removes its own"
	run cr sem "/$n-sem"
	is "$rc:$out" "0:ok 1" "$who: inside, sem_open creates, reopens by name and removes its own"
	is "$(ls /dev/shm | grep -c "^\(sem\.\)\?$n")" 0 "$who: nothing of its own is left in /dev/shm"

	# an object of the user's other programs
	run out make "/$n"
	is "$out" "ok" "$who: the user makes /dev/shm/$n outside"
	made="$made $n"
	for w in read write take unlink file; do
		run cr $w "/$n"
		is "$rc:$out" "0:EACCES" "$who: inside, $w of the user's object: EACCES"
	done
	run out read "/$n"
	is "$out" "ok u" "$who: control: outside it reads, unchanged and in place"
	run out write "/$n"
	is "$out" "ok" "$who: control: outside it writes"

	run sh -c "cd '$B/ws' && $AS $E '$CF' -x /usr -x /lib -x /lib64 -r /etc -r /proc -r '$B/ws' --dev --own-shm -- /usr/bin/python3 so.py mp"
	is "$rc:$out" "0:ok 1 4 9 1 4" "$who: confine --own-shm: multiprocessing"
	run sh -c "cd '$B/ws' && $AS $E '$CF' -x /usr -x /lib -x /lib64 -r /etc -r /proc -r '$B/ws' --dev -- /usr/bin/python3 so.py mp"
	is "$rc:$out" "0:EACCES" "$who: control: confine without --own-shm refuses it (EACCES)"

	run sh -c "cd '$B/ws' && $AS $NS $E timeout 120 '$C' run -- /usr/bin/python3 so.py mp"
	is "$rc:$out" "0:ok 1 4 9 1 4" "$who: without namespaces, multiprocessing inside"
	run sh -c "cd '$B/ws' && $AS $NS $E timeout 60 '$C' run -- /usr/bin/python3 so.py read '/$n'"
	is "$rc:$out" "0:EACCES" "$who: without namespaces, the user's object stays unreadable"
}

suite root
suite nobody
done_testing
