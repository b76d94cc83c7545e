#!/bin/sh
# session-store reap: gone and old attempts go; nothing is followed out of the store.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
st=$TMP/store
S() { "$SS" --store "$st" "$@"; }
ws=$TMP/ws; mkdir -p "$ws"
printf 'tok' | S put tok

# The outside world an agent would like deleted.
mkdir -p "$TMP/outside/sub"
echo precious >"$TMP/outside/file"
echo precious >"$TMP/outside/sub/file"
outside_ok() { [ "$(cat "$TMP/outside/file" "$TMP/outside/sub/file")" = "precious
precious" ]; }

# an attempt's tree as home-stage makes it: STORE/aNONCE with its id first
tree() { mkdir -p "$1/$3/home" && printf '%s\n' "$2" >"$1/$3/id"; }

sleep 600 & live=$!
sleep 600 & dead=$!
idlive=$(S begin --agent claude --pid $live)
iddead=$(S begin --agent claude --pid $dead)
run S begin --agent claude; idself=$out
kill $dead; wait $dead 2>/dev/null
S release tok --attempt "$iddead" >/dev/null

# a staged tree for the dead attempt, with planted symlinks
tree "$st" "$iddead" a0123456789
mkdir -p "$st/a0123456789/home/deep/er"
ln -s "$TMP/outside" "$st/a0123456789/home/link"
ln -s "$TMP/outside" "$st/a0123456789/home/deep/er/link"
ln -s "$TMP/outside/file" "$st/a0123456789/home/flink"
# a symlink planted in the store itself under a tree's name, to a
# directory whose id names the dead attempt
tree "$TMP/outside" "$iddead" afedcba9876
ln -s "$TMP/outside/afedcba9876" "$st/afedcba9876"
tree "$st" "$idlive" abcdef01234

run S reap --older-than 1h
status_ok $rc "reap --older-than 1h"
is "$out" "" "nothing younger than an hour is reaped"
run S reap --older-than 0
status_ok $rc "reap --older-than 0"
is "$out" "$iddead" "only the attempt whose process is gone is reaped"
[ ! -e "$st/attempts/$iddead" ]; status_ok $? "its record is gone"
[ ! -e "$st/a0123456789" ]; status_ok $? "its tree is gone"
[ -L "$st/afedcba9876" ] && [ -d "$TMP/outside/afedcba9876/home" ]; status_ok $? "a symlink in a tree's place is not followed: not the dead attempt's"
touch -h -d '3 days ago' "$st/afedcba9876"
run S reap --older-than 1d
is "$out" "afedcba9876" "... once old, it is unlinked as a tree without an id, by its name"
[ ! -e "$st/afedcba9876" ] && [ -d "$TMP/outside/afedcba9876/home" ]; status_ok $? "... and what it names stays"
[ ! -e "$st/released/$iddead.tok" ]; status_ok $? "its release marker is gone"
outside_ok; status_ok $? "nothing outside was deleted through the symlinks"
[ -d "$TMP/outside/sub" ]; status_ok $? "the outside directory is intact"
[ -e "$st/attempts/$idlive" ] && [ -d "$st/abcdef01234" ]; status_ok $? "the live attempt stays"
[ -e "$st/attempts/$idself" ]; status_ok $? "the caller's own attempt stays"

# pid reuse: a record naming a live pid with another start time is gone
kill $live; wait $live 2>/dev/null
sed -i 's/"pid_start":[0-9]*/"pid_start":1/; s/"pid":[0-9]*/"pid":1/' "$st/attempts/$idlive"
run S reap --older-than 0
is "$out" "$idlive" "a reused pid (other start time) counts as gone"
[ ! -e "$st/abcdef01234" ]; status_ok $? "and its tree is removed"

# a tree without a record, older than the bound, goes too
orphan=0123456789abcdef0123456789abcdef
tree "$st" "$orphan" a0000000001
ln -s "$TMP/outside" "$st/a0000000001/home/x"
run S reap --older-than 1d
is "$out" "" "a fresh orphan tree stays under a 1 day bound"
touch -h -d '3 days ago' "$st/a0000000001"
run S reap --older-than 1d
is "$out" "$orphan" "an orphan tree older than the bound is reaped"
outside_ok; status_ok $? "outside still intact"
# a tree killed before its id was written goes by its age alone; one
# younger than ten minutes is being made (home-stage writes the id first
# thing) and stays even under --older-than 0, as corral reaps
mkdir -p "$st/a0000000002/home"
run S reap --older-than 0
is "$rc:$out" "0:" "a tree without an id, made just now: not reaped under --older-than 0"
touch -h -d '3 days ago' "$st/a0000000002"
run S reap --older-than 1d
is "$out" "a0000000002" "a tree without an id, older than the bound, is reaped under its name"
# names that are not attempt trees are never touched
mkdir "$st/attempt-notanid" "$st/a000000000g" "$st/a00000000001"
run S reap --older-than 0
[ -d "$st/attempt-notanid" ] && [ -d "$st/a000000000g" ] && [ -d "$st/a00000000001" ]; status_ok $? "a non-tree name is left alone"
run S reap --older-than soon
is $rc 2 "bad duration: exit 2"
like "$err" "^session-store: fatal: bad --older-than soon" "bad duration: message"

# several dead attempts in one reap, each with a released credential, and
# an orphan tree: one run removes them all (the scans of released/ and of
# the store must each start from the beginning for every attempt)
st2=$TMP/store2
printf 'tok' | "$SS" --store "$st2" put tok
ids=
for i in 1 2 3; do
	sleep 600 & p=$!
	id=$("$SS" --store "$st2" begin --agent claude --pid $p)
	"$SS" --store "$st2" release tok --attempt "$id" >/dev/null
	tree "$st2" "$id" a000000000$i
	kill $p; wait $p 2>/dev/null
	ids="$ids $id"
done
orphan2=fedcba9876543210fedcba9876543210
tree "$st2" "$orphan2" a00000000ff
[ "$(ls "$st2/released" | wc -l)" -eq 3 ]; status_ok $? "control: three release markers before the reap"
run "$SS" --store "$st2" reap --older-than 0
status_ok $rc "reap of three dead attempts and an orphan"
is "$(printf '%s\n' $out | sort | tr '\n' ' ')" "$(printf '%s\n' $ids $orphan2 | sort | tr '\n' ' ')" "all three and the orphan are reported in one run"
is "$(ls "$st2/released")" "" "every release marker is gone after one run"
is "$(ls "$st2" | grep '^a[0-9a-f]\{10\}$')" "" "every tree, the orphan's too, is gone after one run"

# as nobody, with a tree made unreadable by the agent
nobody_dir "$TMP/nb"
sleep 600 & p=$!
nid=$(as_nobody "$SS" --store "$TMP/nb/st" begin --agent claude --pid $p)
kill $p; wait $p 2>/dev/null
as_nobody sh -c "mkdir -p '$TMP/nb/st/a0123456789/home/locked/in' && echo $nid >'$TMP/nb/st/a0123456789/id'"
as_nobody ln -s "$TMP/outside" "$TMP/nb/st/a0123456789/home/locked/in/l"
as_nobody chmod 000 "$TMP/nb/st/a0123456789/home/locked"
run as_nobody "$SS" --store "$TMP/nb/st" reap --older-than 0
is "$out" "$nid" "nobody: reaped, through a mode-000 directory"
[ ! -e "$TMP/nb/st/a0123456789" ]; status_ok $? "nobody: tree gone"
outside_ok; status_ok $? "nobody: outside intact"

# a dead attempt's tree that cannot be removed (a folder of root's inside):
# said, exit 2, the record goes; what is left of the tree (its id may be
# gone) is an orphan to a later reap (the control: root's folder gone and
# the tree an hour old, it goes)
sleep 600 & p=$!
nid2=$(as_nobody "$SS" --store "$TMP/nb/st" begin --agent claude --pid $p)
kill $p; wait $p 2>/dev/null
as_nobody sh -c "mkdir -p '$TMP/nb/st/a0123456780/home' && echo $nid2 >'$TMP/nb/st/a0123456780/id'"
mkdir "$TMP/nb/st/a0123456780/home/roots" && : >"$TMP/nb/st/a0123456780/home/roots/f"
run as_nobody "$SS" --store "$TMP/nb/st" reap --older-than 0
is "$rc:$out" "2:$nid2" "nobody: a dead attempt's tree that cannot be removed: exit 2, its record reaped"
like "$err" "unable to remove a0123456780" "... and said"
[ -d "$TMP/nb/st/a0123456780" ] && [ ! -e "$TMP/nb/st/attempts/$nid2" ]; status_ok $? "... the tree stays, the record goes"
rm -rf "$TMP/nb/st/a0123456780/home/roots"
touch -d '-1 hour' "$TMP/nb/st/a0123456780"
run as_nobody "$SS" --store "$TMP/nb/st" reap --older-than 0
is "$rc" 0 "control: a later reap removes the tree, as an orphan"
like "$out" "^($nid2|a0123456780)\$" "... named by its id, or by its name when the id went first"
[ ! -e "$TMP/nb/st/a0123456780" ]; status_ok $? "... gone"
# begin --id ID --reap: the caller's id, then reap's work under the same lock
st3=$TMP/store3
printf 'tok' | "$SS" --store "$st3" put tok
sleep 600 & p=$!
dead3=$("$SS" --store "$st3" begin --agent claude --pid $p)
"$SS" --store "$st3" release tok --attempt "$dead3" >/dev/null
tree "$st3" "$dead3" a0000000033
ln -s "$TMP/outside" "$st3/a0000000033/home/link"
kill $p; wait $p 2>/dev/null
sleep 600 & live3=$!
idl3=$("$SS" --store "$st3" begin --agent claude --pid $live3)
mine=00112233445566778899aabbccddeeff
run "$SS" --store "$st3" begin --agent claude --id $mine
is "$rc:$out" "0:$mine" "begin --id: the caller's id, printed"
[ -e "$st3/attempts/$dead3" ] && [ -d "$st3/a0000000033" ]; status_ok $? "control: begin without --reap leaves the dead attempt"
run "$SS" --store "$st3" begin --agent claude --id $mine --reap
is "$rc:$out" "1:" "begin --id of a recorded attempt: refused, exit 1"
like "$err" "^session-store: fatal: attempt $mine exists already$" "... saying so"
[ -e "$st3/attempts/$dead3" ]; status_ok $? "... and nothing was reaped"
run "$SS" --store "$st3" begin --agent claude --id 00112233445566778899AABBCCDDEEFF
is "$rc" 2 "begin --id not 32 lowercase hex digits: exit 2"
like "$err" "^session-store: fatal: bad --id" "... saying so"
mine2=ffeeddccbbaa99887766554433221100
run "$SS" --store "$st3" begin --agent claude --id $mine2 --reap
is "$rc:$out" "0:$mine2" "begin --id --reap prints only the id"
[ ! -e "$st3/attempts/$dead3" ] && [ ! -e "$st3/a0000000033" ] && [ ! -e "$st3/released/$dead3.tok" ]; status_ok $? "... and reaped the dead attempt: record, tree, marker"
outside_ok; status_ok $? "... following nothing out of the store"
[ -e "$st3/attempts/$idl3" ] && [ -e "$st3/attempts/$mine" ] && [ -e "$st3/attempts/$mine2" ]; status_ok $? "... the live attempts stay, its own included"
kill $live3; wait $live3 2>/dev/null
done_testing
