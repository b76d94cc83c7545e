#!/bin/sh
# home-stage create: the attempt tree, the one sign-in, the minimal .gitconfig.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
st=$TMP/store ws=$TMP/ws home=$TMP/home
mkdir -p "$ws" "$home/.claude" "$home/.codex"
S() { "$SS" --store "$st" "$@"; }
H() { env -i HOME="$home" "$HS" "$@"; }
t=$(now)
cat >"$home/.gitconfig" <<'GIT'
# the user's own
[user]
	name = "Ada \"The\" Lovelace"
	email = ada@example.com ; a comment
	signingkey = ABC
[credential]
	helper = store
[core]
	hooksPath = /tmp/hooks
	sshCommand = evil
[include]
	path = /tmp/other.gitconfig
[url "https://x"]
	insteadOf = https://github.com
GIT
claude_account u-1 >"$TMP/acct"
claude_signin tok0 $((t + 3600)) >"$TMP/c0"
S put claude --agent claude --account-from "$TMP/acct" <"$TMP/c0"

run "$HS" --help
status_ok $rc "--help"
like "$out" 'usage: home-stage create --state DIR --attempt ID --agent NAME \[--signin NAME\]' "--help synopsis"
run "$HS" --version
is "$out" "home-stage 0.1.0" "--version"

id=$(S begin --agent claude --pid $$)
cd "$ws"
run H create --state "$st" --attempt "$id" --agent claude
status_ok $rc "create exits 0"
d=$out
like "$d" "^$st/a[0-9a-f]{10}\$" "prints only the attempt directory"
is "$(cat "$d/id")" "$id" "its id file names the attempt"
is "$err" "" "nothing on stderr"
is "$(stat -c %a "$d" "$d/home" "$d/config" "$d/tmp" | tr '\n' ' ')" "700 700 700 700 " "attempt dir, home, config, tmp are 0700"
is "$(stat -c %a "$d/home/.claude/.credentials.json")" 600 "sign-in 0600"
is "$(cat "$d/home/.claude/.credentials.json")" "$(cat "$TMP/c0")" "sign-in is the stored one, exactly"
is "$(cd "$d/home" && find . | sort | tr '\n' ' ')" ". ./.claude ./.claude/.credentials.json ./.gitconfig " "home holds the sign-in and .gitconfig, nothing else"
is "$(cat "$d/home/.gitconfig")" '[user]
	name = "Ada \"The\" Lovelace"
	email = "ada@example.com"' ".gitconfig: user.name and user.email only"
is "$(HOME=$d/home git config --global --get user.name)" 'Ada "The" Lovelace' "git reads the name back"
is "$(HOME=$d/home XDG_CONFIG_HOME=/nonexistent git config --global --list | cut -d= -f1 | tr '\n' ' ')" "user.name user.email " "git sees no other setting"
run H create --state "$st" --attempt "$id" --agent claude
is $rc 1 "second create for the attempt: the release is refused, exit 1"
like "$err" "already released for attempt $id" "second create: the store's reason"
like "$err" "^home-stage: fatal: sign-in claude not released|home-stage: fatal: sign-in claude not released" "second create: home-stage's line"
is "$(ls "$st" | grep -c '^a[0-9a-f]\{10\}$')" 1 "second create left no tree behind"

# --nonce: the caller names the tree (corral names it to its chain before
# create runs); one already there is refused (mkdir), nothing planted
# there is used; a malformed one is refused before anything is recorded
idn=$(S begin --agent claude --pid $$)
run H create --state "$st" --attempt "$idn" --agent claude --full-setup --nonce 0123456789
is "$rc:$(echo "$out" | head -1)" "0:$st/a0123456789" "--nonce: the tree is named by it"
idn2=$(S begin --agent claude --pid $$)
run H create --state "$st" --attempt "$idn2" --agent claude --full-setup --nonce 0123456789
is "$rc:$(cat "$st/a0123456789/id")" "1:$idn" "--nonce: a tree already there: refused, left as it was"
like "$err" "^home-stage: fatal: unable to create $st/a0123456789: File exists" "... says why"
rm -rf "$st/a0123456789"
for bad in 012345678 0123456789a 012345678G ../../etc; do
	run H create --state "$st" --attempt "$(S begin --agent claude --pid $$)" --agent claude --full-setup --nonce "$bad"
	is "$rc:$err" "2:home-stage: fatal: bad --nonce (want 10 lowercase hex digits)" "--nonce $bad: refused"
done
is "$(ls "$st" | grep -c '^a[0-9a-f]\{10\}$')" 1 "... no tree made for them"

# XDG git config is read first, ~/.gitconfig wins
mkdir -p "$home/.config/git"
printf '[user]\n\temail = xdg@example.com\n\tname = Xdg\n' >"$home/.config/git/config"
mv "$home/.gitconfig" "$home/.gitconfig.off"
id2=$(S begin --agent claude --pid $$)
d2=$(H create --state "$st" --attempt "$id2" --agent claude)
like "$(cat "$d2/home/.gitconfig")" 'email = "xdg@example.com"' "XDG git config used when there is no ~/.gitconfig"
mv "$home/.gitconfig.off" "$home/.gitconfig"
rm -rf "$home/.config"
id3=$(S begin --agent claude --pid $$)
run env -i HOME=/nonexistent "$HS" create --state "$st" --attempt "$id3" --agent claude
status_ok $rc "no git config at all: still created"
is "$(cat "$out/home/.gitconfig")" "" ".gitconfig is empty then"

# --signin picks another stored sign-in; --full-setup copies nothing
claude_signin tok9 $((t + 3600)) | S put work --agent claude --account-from "$TMP/acct"
id4=$(S begin --agent claude --pid $$)
d4=$(H create --state "$st" --attempt "$id4" --agent claude --signin work)
like "$(cat "$d4/home/.claude/.credentials.json")" '"accessToken":"tok9"' "--signin NAME stages that sign-in"
id5=$(S begin --agent claude --pid $$)
run H create --state "$st" --attempt "$id5" --agent claude --full-setup
status_ok $rc "--full-setup"
is "$(printf '%s\n' "$out" | sed -n 2p)" "$home/.claude" "--full-setup prints the folders to grant"
d5=$(printf '%s\n' "$out" | head -n 1)
[ ! -e "$d5/home/.claude" ]; status_ok $? "--full-setup copies no sign-in"
[ ! -e "$st/released/$id5.claude" ]; status_ok $? "--full-setup releases nothing"
id5b=$(S begin --agent gemini --pid $$)
run H create --state "$st" --attempt "$id5b" --agent gemini --full-setup
like "$err" "full setup: $home/.gemini is not a directory, not granted" "--full-setup: a missing folder is named, not printed"
is "$(printf '%s\n' "$out" | wc -l)" 1 "--full-setup: only the directory then"

# refusals
id6=$(S begin --agent claude --pid $$)
run H create --state "$ws/state" --attempt "$id6" --agent claude
is $rc 1 "state inside the workspace refused"
like "$err" "^home-stage: fatal: state directory $ws/state overlaps the workspace $ws" "workspace: message"
run H create --state "$TMP" --attempt "$id6" --agent claude --workspace "$st"
is $rc 1 "workspace inside the state directory refused"
like "$err" "overlaps the workspace" "workspace inside: message"
run H create --state "$st" --attempt "$id6" --agent claude --workspace "$st/../store"
is $rc 1 "the same directory by another spelling refused"
like "$err" "overlaps the workspace" "same directory: message"
mkdir -m 0777 "$TMP/open"; chmod 0777 "$TMP/open"
run H create --state "$TMP/open" --attempt "$id6" --agent claude
is $rc 1 "0777 state directory refused"
like "$err" "group- or world-writable" "0777: reason"
nobody_dir "$TMP/nbstate"
run H create --state "$TMP/nbstate" --attempt "$id6" --agent claude
is $rc 1 "state directory owned by nobody refused (as root)"
like "$err" "owned by uid 65534" "foreign owner: reason"
ln -s "$st" "$TMP/stlink"
run H create --state "$TMP/stlink" --attempt "$id6" --agent claude
is $rc 2 "state directory given as a symlink refused"
run H create --state "$st" --attempt "$id6" --agent nosuch
is $rc 2 "unknown agent: exit 2"
run H create --state "$st" --attempt XYZ --agent claude
is $rc 2 "bad attempt id: exit 2"
run H create --state "$st" --agent claude
is $rc 2 "missing --attempt: exit 2"
idx=$(S begin --agent codex --pid $$)
run H create --state "$st" --attempt "$idx" --agent claude
is $rc 1 "an attempt begun for another agent: exit 1"
like "$err" "^home-stage: fatal: attempt $idx: it was begun for another agent" "another agent: message"
run H create --state "$st" --attempt 0123456789abcdef0123456789abcdef --agent claude
is $rc 1 "an attempt the store lacks: exit 1"
like "$err" "no such attempt in the store" "unknown attempt: message"
# Started beside session-store begin (corral run): --wait-record waits for
# the record and stages nothing before it. The control, without it, refuses
# the same attempt not yet recorded.
rid() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
idw=$(rid)
run H create --state "$st" --attempt "$idw" --agent claude
is $rc 1 "control: an attempt not recorded yet, no --wait-record: refused"
H create --state "$st" --attempt "$idw" --agent claude --wait-record 60 >"$TMP/w.out" 2>"$TMP/w.err" &
wp=$!
S begin --agent claude --pid $$ --id "$idw" >/dev/null
wait $wp
status_ok $? "--wait-record: create started before begin stages the home once begin records it"
d=$(cat "$TMP/w.out")
is "$(cat "$d/id")" "$idw" "--wait-record: the tree is the attempt's"
is "$(cat "$d/home/.claude/.credentials.json")" "$(cat "$TMP/c0")" "--wait-record: the sign-in released for it"
run H create --state "$st" --attempt "$(rid)" --agent claude --wait-record 1
is $rc 1 "--wait-record: no record within the bound: refused"
like "$err" "no such attempt in the store" "--wait-record: no record: message"
run H create --state "$st" --attempt "$idx" --agent claude --wait-record 60
is $rc 1 "--wait-record: a record of another agent: refused at once"
run H create --state "$st" --attempt "$idw" --agent claude --wait-record x
is $rc 2 "--wait-record: not a number: exit 2"
# --begin (corral run): create records the attempt itself, under the
# store's lock, and reaps the leftovers of dead attempts, as session-store
# begin --reap would: no process beside, no wait. The control above: an id
# not recorded is refused without it.
sleep 300 & dead=$!
idd=$(S begin --agent claude --pid $dead)
dd=$(H create --state "$st" --attempt "$idd" --agent claude)
kill $dead; wait $dead 2>/dev/null
status_ok "$([ -d "$dd" ] && [ -e "$st/attempts/$idd" ]; echo $?)" "--begin: a dead attempt's record and tree are there before"
idb=$(rid)
run H create --state "$st" --attempt "$idb" --agent claude --begin --pid $$
status_ok $rc "--begin: create records the attempt and stages its home"
db=$out
like "$(S show "$idb")" "^id $idb
agent claude
pid $$
start [0-9]+
end -$" "--begin: the record names the agent and the process, running"
is "$(cat "$db/id")" "$idb" "--begin: the tree is the attempt's"
is "$(cat "$db/home/.claude/.credentials.json")" "$(cat "$TMP/c0")" "--begin: the sign-in released for it"
status_ok "$([ ! -e "$dd" ] && [ ! -e "$st/attempts/$idd" ]; echo $?)" "--begin: the dead attempt's record and tree reaped"
status_ok "$([ -d "$d" ] && [ -e "$st/attempts/$idw" ]; echo $?)" "--begin: a live attempt's record and tree kept"
# create sets its own umask (077), and chmods nothing after: a caller's
# narrow umask leaves the agent's folders whole, a wide one opens nothing
# (the control: the default umask, the first create above)
for um in 0377 0000; do
	run env -i HOME="$home" sh -c 'umask '$um'; exec "$0" "$@"' "$HS" create --state "$st" --attempt "$(rid)" \
	    --agent claude --begin --pid $$
	status_ok $rc "umask $um: create"
	du=$out
	is "$(stat -c %a "$du" "$du/home" "$du/config" "$du/tmp" "$du/home/.claude" "$du/id" "$du/stage" \
	    "$du/home/.gitconfig" "$du/home/.claude/.credentials.json" | tr '\n' ' ')" "700 700 700 700 700 600 600 600 600 " \
	    "umask $um: folders 0700, files 0600"
	is "$(cd "$du" && ls -A | tr '\n' ' ')" "config home id stage tmp " "umask $um: a tree in the store: no store key"
done
run H create --state "$st" --attempt "$idx" --agent codex --begin --pid $$
is $rc 1 "--begin: an id recorded already is refused"
like "$err" "^home-stage: fatal: attempt $idx exists already$" "--begin: recorded already: message"
like "$(S show "$idx")" "end -" "--begin: the other record untouched (not ended)"
idf=$(rid)
run H create --state "$st" --attempt "$idf" --agent claude --begin --pid $$ --signin nothere
is $rc 1 "--begin: a sign-in the store lacks: exit 1"
like "$(S show "$idf")" "status 125" "--begin: a create that fails ends the attempt it recorded (125)"
is "$(grep -l "$idf" "$st"/a*/id 2>/dev/null | wc -l)" 0 "--begin: no tree left behind"
run H create --state "$st" --attempt "$(rid)" --agent claude --begin --wait-record 5
is $rc 2 "--begin with --wait-record: usage"
run H create --state "$st" --attempt "$(rid)" --agent claude --pid $$
is $rc 2 "--pid without --begin: usage"
run H create --state "$st" --attempt "$(rid)" --agent claude --begin --pid 0
is $rc 2 "--begin --pid 0: usage"
idy=$(S begin --agent claude --pid $$); S end "$idy" --status 0
run H create --state "$st" --attempt "$idy" --agent claude
is $rc 1 "an ended attempt: exit 1"
run H create --state "$st" --attempt "$id6" --agent claude --signin nothere
is $rc 1 "a sign-in the store lacks: exit 1"
is "$(grep -l "$id6" "$st"/a*/id 2>/dev/null | wc -l)" 0 "no tree left behind"

# A pre-created or symlinked attempt directory: planted at the very moment
# home-stage makes it (ptrace stops it at mkdirat), never followed.
mkdir -p "$TMP/outside"; echo precious >"$TMP/outside/f"
id7=$(S begin --agent claude --pid $$)
run env -i HOME="$home" "$TR" -o "$TMP/pl" plant symlink "$TMP/outside" -- "$HS" create --state "$st" --attempt "$id7" --agent claude
is $rc 1 "symlink planted at the attempt path: create refuses"
like "$(cat "$TMP/pl")" "^planted $st/a[0-9a-f]{10}\$" "the helper planted exactly that path"
like "$err" "^home-stage: fatal: unable to create $st/a[0-9a-f]{10}: File exists" "planted symlink: message"
is "$(ls -A "$TMP/outside")" "f" "nothing created through the symlink"
[ ! -e "$st/released/$id7.claude" ]; status_ok $? "nothing released for it"
run env -i HOME="$home" "$TR" -o "$TMP/pl" plant dir - -- "$HS" create --state "$st" --attempt "$id7" --agent claude
is $rc 1 "directory pre-created at the attempt path: create refuses"
p=$(cut -d' ' -f2 "$TMP/pl")
is "$(ls -A "$p")" "" "the pre-created directory was not used"

# as nobody, in nobody's own store
nobody_dir "$TMP/nb"
as_nobody sh -c '"$0" --store "$1" put claude --agent claude --account-from "$2" <"$3"' "$SS" "$TMP/nb/st" "$TMP/acct" "$TMP/c0"
nid=$(as_nobody "$SS" --store "$TMP/nb/st" begin --agent claude --pid $$)
run as_nobody env -i HOME=/nonexistent "$HS" create --state "$TMP/nb/st" --attempt "$nid" --agent claude --workspace "$ws"
status_ok $rc "nobody: create"
is "$(stat -c '%U %a' "$out/home/.claude/.credentials.json")" "nobody 600" "nobody: sign-in is nobody's, 0600"
run as_nobody env -i HOME=/nonexistent "$HS" create --state "$st" --attempt "$id6" --agent claude --workspace "$ws"
is $rc 2 "nobody: root's store is out of reach"
done_testing
