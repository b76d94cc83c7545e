#!/bin/sh
# home-stage finish: a validated take-back, then removal that follows no
# symlink; with --wait-input, none of it before the go byte.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
provider_start; status_ok $? "fake provider on 127.0.0.1:$PORT"
st=$TMP/store ws=$TMP/ws
mkdir -p "$ws"
cd "$ws"
S() { "$SS" --store "$st" "$@"; }
H() { env -i HOME=/nonexistent "$HS" "$@"; }
t=$(now)
claude_account u-1 >"$TMP/acct"
claude_signin tok0 $((t + 3600)) >"$TMP/c0"
S put claude --agent claude --account-from "$TMP/acct" <"$TMP/c0"
stage() { id=$(S begin --agent "${1:-claude}" --pid $$); d=$(H create --state "$st" --attempt "$id" --agent "${1:-claude}"); }
stored() { tail -n +2 "$st/creds/${1:-claude}"; }
mkdir -p "$TMP/outside/sub"; echo precious >"$TMP/outside/f"; echo precious >"$TMP/outside/sub/f"
outside_ok() { [ "$(cat "$TMP/outside/f" "$TMP/outside/sub/f" 2>/dev/null)" = "precious
precious" ]; }

stage
run H finish $PV "$d"
status_ok $rc "unchanged sign-in: exit 0"
is "$out" "" "unchanged: nothing taken back"
[ ! -e "$d" ]; status_ok $? "tree removed"
is "$(stored)" "$(cat "$TMP/c0")" "store unchanged"

stage
provider_token tok1 u-1
claude_signin tok1 $((t + 7200)) >"$d/home/.claude/.credentials.json"
claude_account u-1 >"$d/home/.claude.json"
run H finish $PV "$d"
status_ok $rc "renewed sign-in, verified by the provider: exit 0"
is "$out" "claude" "reports what it took back, by name only"
is "$(stored)" "$(claude_signin tok1 $((t + 7200)))" "the store holds the renewed sign-in"
[ ! -e "$d" ]; status_ok $? "tree removed"
unlike "$out$err" "tok1" "no token in the output"

# --end (corral run): the attempt's record closed by the same process,
# after the take-back and the removal, whatever they said
stage
run H finish $PV --end "$id" --status 7 --platform linux --tier full "$d"
status_ok $rc "--end: exit 0"
[ ! -e "$d" ]; status_ok $? "--end: tree removed"
like "$(S show "$id")" "status 7
platform linux
tier full" "--end: the record has the status, platform and tier"
run H finish $PV --end "$id" --status 0 "$d"
is $rc 2 "--end: a tree gone: exit 2"
like "$err" "home-stage: fatal: attempt $id has already ended" "--end: ended already: refused, said"
stage
run H finish $PV --end "$id" "$d"
is $rc 2 "--end without --status: usage"
[ -d "$d" ]; status_ok $? "--end without --status: nothing done"
run H finish $PV --status 3 "$d"
is $rc 2 "--status without --end: usage"
run H finish $PV --end "$id" --status 3 --platform linux "$d"
is $rc 2 "--platform without --tier: usage"
run H finish $PV --end XYZ --status 3 "$d"
is $rc 2 "--end: a bad id: usage"
run H finish $PV --end "$id" --status 3 "$d"
status_ok $rc "--end without platform or tier: exit 0"
like "$(S show "$id")" "status 3
platform -
tier -" "--end: no platform, no tier"

# --wait-input (corral run starts finish as the agent starts): nothing
# taken back, removed or recorded until its input ends holding the go byte
# (with --status -, the status after it). Control: the go byte and a
# status: a renewed sign-in taken back, the tree removed, the status
# recorded. Attack stand-in: the input ended without it (corral killed):
# the same renewed sign-in stays out of the store, the tree and the open
# record stay (for the next run's reap), and it says so.
provider_token tokW u-1
stage; claude_signin tokW $((t + 7600)) >"$d/home/.claude/.credentials.json"
before=$(stored)
run H finish $PV --wait-input --end "$id" --status - --platform linux --tier full "$d" </dev/null
is "$rc:$out" "1:" "--wait-input, input ended without the go byte: exit 1, nothing taken back"
is "$err" "home-stage: warning: its input ended without the go byte (its caller gone): nothing taken back, removed or recorded; $d stays until the next run reaps it" "... said in one line"
is "$(stored)" "$before" "... the store unchanged"
[ -f "$d/home/.claude/.credentials.json" ] && [ -f "$d/stage" ]; status_ok $? "... the tree as it was"
unlike "$(S show "$id")" "status" "... the attempt not ended"
run sh -c "printf x9 | env -i HOME=/nonexistent '$HS' finish $PV --wait-input --end '$id' --status - '$d'"
is "$rc:$out" "1:" "--wait-input, another byte first: no go, exit 1"
[ -f "$d/home/.claude/.credentials.json" ]; status_ok $? "... the tree as it was"
run sh -c "printf g | env -i HOME=/nonexistent '$HS' finish $PV --wait-input --end '$id' --status - '$d'"
is "$rc:$out" "2:" "--wait-input --status -: the go byte without a status: exit 2"
like "$err" "home-stage: fatal: its input holds the go byte without a status" "... said"
run sh -c "printf g300 | env -i HOME=/nonexistent '$HS' finish $PV --wait-input --end '$id' --status - '$d'"
is "$rc" 2 "--wait-input --status -: status 300: exit 2"
run sh -c "printf 'g1 x' | env -i HOME=/nonexistent '$HS' finish $PV --wait-input --end '$id' --status - '$d'"
is "$rc" 2 "--wait-input --status -: more after the status: exit 2"
[ -f "$d/home/.claude/.credentials.json" ] && [ -f "$d/stage" ]; status_ok $? "... the tree as it was after each"
is "$(stored)" "$before" "... and the store"
run sh -c "printf 'g9\n' | env -i HOME=/nonexistent '$HS' finish $PV --wait-input --end '$id' --status - --platform linux --tier full '$d'"
is "$rc:$out" "0:claude" "control: the go byte and status 9: the renewed sign-in taken back"
is "$(stored)" "$(claude_signin tokW $((t + 7600)))" "... into the store"
[ ! -e "$d" ]; status_ok $? "... the tree removed"
like "$(S show "$id")" "status 9
platform linux
tier full" "... the attempt ended with status 9"
stage
run sh -c "printf g | env -i HOME=/nonexistent '$HS' finish $PV --wait-input '$d'"
is "$rc:$out" "0:" "--wait-input without --end: the go byte alone"
[ ! -e "$d" ]; status_ok $? "... the tree removed"
stage
run H finish $PV --end "$id" --status - "$d"
is "$rc" 2 "--status - without --wait-input: usage"
run H create --state "$st" --attempt "$id" --agent claude --wait-input
is "$rc" 2 "create --wait-input: usage"
[ -f "$d/stage" ]; status_ok $? "... nothing done"
run H finish $PV --end "$id" --status 0 "$d"

refused() {	# refused DESC: the agent wrote $d's sign-in; finish must refuse it
	before=$(stored)
	run H finish $PV "$d"
	is $rc 1 "$1: exit 1"
	is "$out" "" "$1: nothing taken back"
	like "$err" "renewed sign-in claude not taken back: .*; the stored sign-in stays" "$1: said in one line"
	is "$(stored)" "$before" "$1: store unchanged"
	[ ! -e "$d" ]; status_ok $? "$1: tree removed all the same"
}
provider_token tokA u-2
stage; claude_signin tokA $((t + 9000)) >"$d/home/.claude/.credentials.json"; claude_account u-1 >"$d/home/.claude.json"
refused "the provider names another account (the agent's .claude.json names ours)"
like "$err" "the provider says its token belongs to another account" "another account: the store's reason"
stage; claude_signin tokO $((t + 60)) >"$d/home/.claude/.credentials.json"; claude_account u-1 >"$d/home/.claude.json"
refused "older token"
stage; claude_signin tokF $((t + 1000 * 86400)) >"$d/home/.claude/.credentials.json"; claude_account u-1 >"$d/home/.claude.json"
refused "absurd expiry"
stage; printf '{"claudeAiOauth":{' >"$d/home/.claude/.credentials.json"; claude_account u-1 >"$d/home/.claude.json"
refused "malformed JSON"
like "$err" "malformed JSON" "malformed: reason"
provider_token tok2 u-1
stage; claude_signin tok2 $((t + 8000)) >"$d/home/.claude/.credentials.json"
run H finish $PV "$d"
is "$rc:$out" "0:claude" "no account file beside it: taken back all the same (no file the agent wrote names the account)"
stage
head -c 52428800 /dev/zero | tr '\0' ' ' >"$d/home/.claude/.credentials.json"; claude_account u-1 >"$d/home/.claude.json"
run "$TR" -o "$TMP/rss" rss -- "$HS" finish $PV "$d"
is $rc 1 "50 MiB sign-in refused"
like "$err" "renewed sign-in claude not taken back: larger than 1048576 bytes; the stored sign-in stays" "50 MiB: reason"
rss=$(awk '{print $2}' "$TMP/rss")
stage; claude_signin tokO $((t + 60)) >"$d/home/.claude/.credentials.json"; claude_account u-1 >"$d/home/.claude.json"
"$TR" -o "$TMP/rss0" rss -- "$HS" finish $PV "$d" 2>/dev/null
rss0=$(awk '{print $2}' "$TMP/rss0")
[ "$rss" -lt $((rss0 + 2048)) ]; status_ok $? "50 MiB: peak RSS ${rss} KiB, within 2 MiB of a small refusal's ${rss0} KiB"
[ ! -e "$d" ]; status_ok $? "50 MiB: tree removed"

# Symlinks the agent planted: never followed, for take-back or removal.
claude_signin tokS $((t + 8500)) >"$TMP/outside/creds.json"
claude_account u-1 >"$TMP/outside/acct.json"
stage
rm "$d/home/.claude/.credentials.json"
ln -s "$TMP/outside/creds.json" "$d/home/.claude/.credentials.json"
claude_account u-1 >"$d/home/.claude.json"
before=$(stored)
run H finish $PV "$d"
status_ok $rc "sign-in replaced by a symlink: finish completes"
like "$err" "renewed sign-in claude not taken back: .claude/.credentials.json is not a plain file; the stored sign-in stays" "symlinked sign-in: not taken back"
is "$(stored)" "$before" "symlinked sign-in: store unchanged"
stage
mv "$d/home/.claude" "$d/home/.claude.real"
ln -s "$TMP/outside" "$d/home/.claude"
cp "$TMP/outside/creds.json" "$TMP/outside/.credentials.json"
run H finish $PV "$d"
is "$out" "" "sign-in folder replaced by a symlink: nothing read through it"
rm -f "$TMP/outside/.credentials.json"
stage
ln -s "$TMP/outside" "$d/home/link"
ln -s "$TMP/outside" "$d/tmp/link"
ln -s "$TMP/outside/f" "$d/config/flink"
mkdir -p "$d/home/a/b/c" && ln -s "$TMP/outside/sub" "$d/home/a/b/c/deep"
ln -s / "$d/home/root"
run H finish $PV "$d"
status_ok $rc "planted symlinks: finish exits 0"
[ ! -e "$d" ] && [ ! -L "$d" ]; status_ok $? "planted symlinks: tree removed"
outside_ok; status_ok $? "nothing deleted through any planted symlink"
is "$(ls -A "$TMP/outside" | sort | tr '\n' ' ')" "acct.json creds.json f sub " "the outside directory is as it was"

# A very deep tree and many files are removed too.
stage
( cd "$d/home" && i=0 && while [ $i -lt 300 ]; do mkdir d && cd d || exit 1; i=$((i + 1)); done; touch f )
i=0; while [ $i -lt 500 ]; do : >"$d/tmp/f$i"; i=$((i + 1)); done
run H finish $PV "$d"
status_ok $rc "300 levels deep and 500 files: exit 0"
[ ! -e "$d" ]; status_ok $? "deep tree removed"

# A process left running writes into a folder just as finish removes it
# (ptrace stops finish at that rmdir and creates a file there first):
# finish scans again and the tree goes all the same.
# (LeakSanitizer cannot run under ptrace: in the sanitizer build the exit
# status is LSan's, and only the effect is checked.)
for dirname in tmp home .claude attempt-dir; do
	stage
	[ $dirname = attempt-dir ] && dirname=${d##*/}
	run env -i HOME=/nonexistent "$TR" -o "$TMP/pl" plant fill "$dirname" -- "$HS" finish $PV "$d"
	like "$(cat "$TMP/pl")" "^planted $st/(.*/)?$dirname\$" "a file planted in $dirname at its rmdir"
	[ "${CORRAL_MODE:-musl}" = san ] && rc=0
	status_ok $rc "$dirname refilled at its rmdir: exit 0"
	[ ! -e "$d" ]; status_ok $? "$dirname refilled at its rmdir: tree removed all the same"
done

# finish refuses what is not an attempt directory
run H finish "$TMP/outside"
is $rc 2 "not an attempt directory: exit 2"
like "$err" "^home-stage: fatal: $TMP/outside: not an attempt directory" "not an attempt dir: message"
outside_ok; status_ok $? "and leaves it alone"
ln -s "$TMP/outside" "$st/a0123456789"
run H finish "$st/a0123456789"
is $rc 2 "an attempt path that is a symlink: refused"
outside_ok; status_ok $? "nothing deleted through it"
rm "$st/a0123456789"
run H finish
is $rc 2 "finish without DIR: usage"

# codex: the expiry inside the JWT, no other file
codex_signin acc-1 $((t + 3600)) | S put codex --agent codex
access() { sed 's/.*"access_token":"\([^"]*\)".*/\1/' "$1"; }
stage codex
codex_signin acc-1 $((t + 7200)) >"$d/home/.codex/auth.json"
provider_token "$(access "$d/home/.codex/auth.json")" acc-1
run H finish $PV "$d"
is "$out" "codex" "codex: renewed sign-in taken back"
stage codex
codex_signin acc-1 $((t + 9200)) >"$d/home/.codex/auth.json"
provider_token "$(access "$d/home/.codex/auth.json")" acc-9
run H finish $PV "$d"
is $rc 1 "codex: its auth.json names acc-1, the provider acc-9: refused"

# as nobody, with a mode-000 folder and a symlink out
nobody_dir "$TMP/nb"
as_nobody sh -c '"$0" --store "$1" put claude --agent claude --account-from "$2" <"$3"' "$SS" "$TMP/nb/st" "$TMP/acct" "$TMP/c0"
nid=$(as_nobody "$SS" --store "$TMP/nb/st" begin --agent claude --pid $$)
nd=$(as_nobody env -i HOME=/nonexistent "$HS" create --state "$TMP/nb/st" --attempt "$nid" --agent claude --workspace "$ws")
as_nobody sh -c 'mkdir -p "$0/home/x/y" && ln -s "$1" "$0/home/x/y/out" && chmod 000 "$0/home/x"' "$nd" "$TMP/outside"
provider_token tokN u-1
claude_signin tokN $((t + 7000)) | as_nobody sh -c 'cat >"$0/home/.claude/.credentials.json"' "$nd"
claude_account u-1 | as_nobody sh -c 'cat >"$0/home/.claude.json"' "$nd"
run as_nobody env -i HOME=/nonexistent "$HS" finish $PV "$nd"
status_ok $rc "nobody: finish"
is "$out" "claude" "nobody: renewed sign-in taken back"
[ ! -e "$nd" ]; status_ok $? "nobody: tree with a mode-000 folder removed"
outside_ok; status_ok $? "nobody: outside intact"
done_testing
