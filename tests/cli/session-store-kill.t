#!/bin/sh
# kill -9 at every system call of a write (from outside, by ptrace): the
# store holds the old state or the new one, never a torn file.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
st=$TMP/store
S() { "$SS" --store "$st" "$@"; }
t=$(now)

# Every syscall is a kill point; the sanitizer build makes several times
# more calls, so there every STEP-th one is.
step_for() { if [ "${CORRAL_MODE:-musl}" = san ]; then echo $(( 1 + $1 / 40 )); else echo 1; fi; }

# killsweep NAME FILE OLD NEW CMD...: kill CMD at syscall 1..N+1, restoring
# FILE to OLD before each run; FILE must then equal OLD or NEW.
# same A B: the same bytes but for the header's "since" and "renewed" (the
# clock at each write: a sweep's run and the reference differ there)
same() {
	sed '1s/"since":[0-9]*,"renewed":[0-9]*/"since":T,"renewed":T/' "$1" > "$TMP/same.a" &&
	sed '1s/"since":[0-9]*,"renewed":[0-9]*/"since":T,"renewed":T/' "$2" > "$TMP/same.b" &&
	cmp -s "$TMP/same.a" "$TMP/same.b"
}

killsweep() {
	name=$1 file=$2 old=$3 new=$4; shift 4
	cp "$old" "$file"
	"$TR" -o "$TMP/cnt" count -- "$@" >/dev/null 2>&1
	n=$(awk '{print $2}' "$TMP/cnt")
	[ "$n" -gt 20 ]; status_ok $? "$name: $n system calls to sweep"
	k=1 nold=0 nnew=0 torn=0 step=$(step_for $n) pts=0
	while [ $k -le $((n + 1)) ]; do
		cp "$old" "$file"
		"$TR" -o "$TMP/k" kill $k -- "$@" >/dev/null 2>&1
		if same "$file" "$old"; then nold=$((nold + 1))
		elif same "$file" "$new"; then nnew=$((nnew + 1))
		else torn=$((torn + 1)); diag "$name: torn after a kill at syscall $k"; fi
		k=$((k + step)) pts=$((pts + 1))
	done
	is $torn 0 "$name: killed at $pts points of $((n + 1)) (every ${step}): never torn"
	[ $nold -gt 0 ] && [ $nnew -gt 0 ]; status_ok $? "$name: both outcomes seen (old $nold, new $nnew)"
}

# renew (verified by a fake provider on loopback)
provider_start
provider_token new u-1
claude_account u-1 >"$TMP/acct"
claude_signin old $((t + 3600)) | S put claude --agent claude --account-from "$TMP/acct"
cp "$st/creds/claude" "$TMP/old"
claude_signin new $((t + 7200)) >"$TMP/c1"
S $PV renew claude --from "$TMP/c1"
cp "$st/creds/claude" "$TMP/new"
killsweep renew "$st/creds/claude" "$TMP/old" "$TMP/new" \
	"$SS" --store "$st" $PV renew claude --from "$TMP/c1"

# put (replacing a secret)
printf 'secret-one' | S put tok
cp "$st/creds/tok" "$TMP/pold"
printf 'secret-two' >"$TMP/two"
printf 'secret-two' | S put tok
cp "$st/creds/tok" "$TMP/pnew"
killsweep put "$st/creds/tok" "$TMP/pold" "$TMP/pnew" \
	/bin/sh -c 'exec "$0" --store "$1" put tok <"$2"' "$SS" "$st" "$TMP/two"

# end (rewriting a record)
id=$(S begin --agent claude)
cp "$st/attempts/$id" "$TMP/eold"
S end "$id" --status 7 --platform linux --tier t1
cp "$st/attempts/$id" "$TMP/enew"
# the end time is part of the record: pin it by comparing without it
sed -i 's/"end":[0-9]*/"end":T/' "$TMP/enew"
cp "$TMP/eold" "$st/attempts/$id"
"$TR" -o "$TMP/cnt" count -- "$SS" --store "$st" end "$id" --status 7 --platform linux --tier t1 2>/dev/null
n=$(awk '{print $2}' "$TMP/cnt")
k=1 torn=0 nold=0 nnew=0 step=$(step_for $n)
while [ $k -le $((n + 1)) ]; do
	cp "$TMP/eold" "$st/attempts/$id"
	"$TR" -o "$TMP/k" kill $k -- "$SS" --store "$st" end "$id" --status 7 --platform linux --tier t1 2>/dev/null
	if cmp -s "$st/attempts/$id" "$TMP/eold"; then nold=$((nold + 1))
	elif [ "$(sed 's/"end":[0-9]*/"end":T/' "$st/attempts/$id")" = "$(cat "$TMP/enew")" ]; then nnew=$((nnew + 1))
	else torn=$((torn + 1)); fi
	k=$((k + step))
done
is $torn 0 "end: killed at every ${step}th of $((n + 1)) points: never torn"
[ $nold -gt 0 ] && [ $nnew -gt 0 ]; status_ok $? "end: both outcomes seen (old $nold, new $nnew)"

# begin: a record appears whole or not at all
"$TR" -o "$TMP/cnt" count -- "$SS" --store "$st" begin --agent claude >/dev/null 2>&1
n=$(awk '{print $2}' "$TMP/cnt")
k=1 step=$(step_for $n)
while [ $k -le $((n + 1)) ]; do
	"$TR" -o "$TMP/k" kill $k -- "$SS" --store "$st" begin --agent claude >/dev/null 2>&1
	k=$((k + step))
done
run S list
is "$err" "" "begin killed at every ${step}th of $((n + 1)) points: every record that exists is whole"

# release killed anywhere: never a second release for that attempt
printf 'rel-secret' | S put rel
"$TR" -o "$TMP/cnt" count -- "$SS" --store "$st" release rel --attempt "$(S begin --agent claude)" >/dev/null 2>&1
n=$(awk '{print $2}' "$TMP/cnt")
k=1 twice=0 step=$(step_for $n)
while [ $k -le $((n + 1)) ]; do
	rid=$(S begin --agent claude)
	"$TR" -o "$TMP/k" kill $k -- "$SS" --store "$st" release rel --attempt "$rid" >"$TMP/r1" 2>/dev/null
	"$SS" --store "$st" release rel --attempt "$rid" >"$TMP/r2" 2>/dev/null
	[ -s "$TMP/r1" ] && [ -s "$TMP/r2" ] && twice=$((twice + 1))
	k=$((k + step))
done
is $twice 0 "release killed at every ${step}th of $((n + 1)) points: the secret never goes out twice"

# the temp files of killed writes are reaped: those the kills above left
# (the strided sanitizer sweep may leave none) and one planted the way a
# killed write leaves it, so the reap always has one to take
diag "temp files left by the kills: $(ls -A "$st/creds" "$st/attempts" | grep -c '\.tmp-')"
printf 'half' > "$st/creds/.rel.tmp-0123456789abcdef"
S reap --older-than 0 >/dev/null
[ ! -e "$st/creds/.rel.tmp-0123456789abcdef" ]; status_ok $? "reap removes the planted temp file"
is "$(ls -A "$st/creds" "$st/attempts" | grep -c '\.tmp-')" 0 "reap removes every temp file of a killed write"
done_testing
