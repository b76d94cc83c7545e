#!/bin/sh
# corral explain: the exact chain, shell-quoted, runnable by hand, no secrets.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
nl='
'
H=$TMP/home
mkdir -p "$H/.ssh" "$TMP/ws/src" "$TMP/state"
echo "SECRET_TOKEN=s3cr3t-value" > "$TMP/secret.env"
chmod 600 "$TMP/secret.env"
cat > "$TMP/p.json" <<J
{"env": {"files": ["$TMP/secret.env"], "set": {"MODE": "ci"}, "keep": ["EDITOR"]}}
J
E="env -i HOME=$H PATH=/usr/bin:/bin XDG_STATE_HOME=$TMP/state"

run $E "$C" explain -p "$TMP/p.json" -w "$TMP/ws" -- printf '%s|' "it's" 'a b' '$HOME' '' 'x"y'
is "$rc:$err" "0:" "explain succeeds"
printf '%s\n' "$out" > "$TMP/x.sh"
sh -n "$TMP/x.sh"
status_ok $? "the output is valid shell"
unlike "$out" 's3cr3t' "a secret from env.files never appears"
like "$out" "-f $TMP/secret.env" "the file is named"
like "$out" "^eval \"\\\$\\($CORRAL_BIN/probe --require full\\)\" \\|\\| exit 125$" "probe first, by absolute path, fail closed"
like "$out" "^ATTEMPT=\\\$\\(od -An -N16 -tx1 /dev/urandom \\| tr -d ' \\\\n'\\)$" "the attempt id: 128 random bits, chosen by the caller"
unlike "$out" "session-store.* begin " "no session-store begin: create records the attempt"
like "$out" "ATTEMPT_DIR=\\\$\\($CORRAL_BIN/home-stage create --state $TMP/state/corral --attempt \"\\\$ATTEMPT\" --agent none --workspace $TMP/ws --session-store $CORRAL_BIN/session-store --begin --pid \"\\\$\\\$\" --full-setup --profiles $TMP/state/corral/nosignin-none.json\\)" "create records the attempt (the script's shell's), reaps the leftovers and stages; no sign-in: the override profile"
like "$out" "^\\(umask 077 && mkdir -p $TMP/state/corral && printf '%s' '\\{\"none\": \\{\"signin\": \".corral-no-signin\", .*\"full_setup\": \\[\\]\\}\\}' > $TMP/state/corral/nosignin-none.json\\)$" "the override profile is written by hand too"
like "$out" "^\\{ printf g \\| $CORRAL_BIN/keeper --pty \\\\$" "keeper starts the chain, by absolute path, with its terminal"
like "$out" " --gate 4 \\\\$" "confine holds the program at its gate (descriptor 4) ..."
like "$out" "'x\"y' 4<&0 <&5 5<&-; \\} 5<&0$" "... a pipe holding the go byte (probe ran first), the chain's stdin given back"
like "$out" "# corral run starts this chain beside the proof" "... and a comment says corral run sets it up beside the proof"
like "$out" "^  -- $CORRAL_BIN/env-filter --baseline " "env-filter starts the next line, by absolute path"
like "$out" "^  -- $CORRAL_BIN/confine " "confine on its own line"
# the system as corral grants it (the default policy's "exec", checked and
# passed with --no-symlinks); sandbox-mcp grants /etc read-only on purpose
# (sandbox-mcp/chain.c, sandbox-mcp-bash.t)
like "$out" "confine --no-symlinks -x /usr -x /etc " "corral: /usr and /etc executable, from the default policy"
like "$out" "-p 'HOME='\"\\\$ATTEMPT_DIR\"'/home'" "HOME pinned to the attempt home"
like "$out" "-W \"\\\$ATTEMPT_DIR\"'/tmp'" "attempt tmp granted"
like "$out" " -W $TMP/ws " "workspace granted (no .git: a plain grant)"
unlike "$out" " -[rxwW] $H( |/|$)" "the real home is not granted"
like "$out" "^printf 'g%s' \"\\\$STATUS\" \\| $CORRAL_BIN/home-stage finish --session-store $CORRAL_BIN/session-store --wait-input --end \"\\\$ATTEMPT\" --status - --platform \"\\\$platform\" --tier \"\\\$tier\" \"\\\$ATTEMPT_DIR\"$" "finish, and the attempt's end: its go byte and the status on its input, platform, tier"
unlike "$out" "session-store.* end " "no session-store end: finish records it"

# the chain lines run by hand give the command exactly its arguments
A=$TMP/state/a0123456789
mkdir -p "$A/home" "$A/config" "$A/tmp"
sed -n '/keeper --pty/,/^STATUS/p' "$TMP/x.sh" | sed '$d' > "$TMP/chain.sh"
run env -i HOME=$H PATH=/usr/bin:/bin ATTEMPT_DIR=$A sh "$TMP/chain.sh"
is "$rc:$out" "0:it's|a b|\$HOME||x\"y|" "the chain, run by hand, passes every argument untouched"

# a repository's top: the agent's own checkout, the real objects read-only
git -C "$TMP/ws" init -q
run $E "$C" explain -w "$TMP/ws" -- true
like "$out" " --on-go -W \"\\\$GIT_WORK\" \"\\\$@\" --on-go -r '$TMP/state/corral/git/'\"\\\$ATTEMPT\"'/base' -r $TMP/ws/.git/objects " "worktree: the attempt's checkout (what git-stage create printed), its dependency links (\"\$@\", from create's dep lines), the base's objects and the real objects; the checkout and the base opened after the go byte (--on-go)"
like "$out" " --gate 4 --chdir \"\\\$GIT_CWD\" " "worktree: confine enters where the agent starts (what create printed) after the go byte"
unlike "$out" "keeper --pty.*--chdir" "... keeper does not (it would enter the checkout before create made it)"
unlike "$out" " -W $TMP/ws " "worktree: the real workspace is not granted"
like "$out" "^GIT_STAGE=\\\$\\($CORRAL_BIN/git-stage create --name corral --state $TMP/state/corral --attempt \"\\\$ATTEMPT\" .*--caller \"\\\$\\\$\" $TMP/ws\\) \\|\\| exit 125\$" "worktree: git-stage create makes the checkout"
like "$out" "^cd \"\\\$GIT_CWD\" \\|\\| exit 125\$" "worktree: the chain runs in the checkout (the path quoted)"
like "$out" "^printf g \\| $CORRAL_BIN/git-stage finish --name corral --state $TMP/state/corral --attempt \"\\\$ATTEMPT\" --wait-input\$" "explain prints the import: git-stage finish (its input: the go byte, the report ran before)"
run $E "$C" explain --in-place -w "$TMP/ws" -- true
like "$out" " --mount-ro '$TMP/ws/.git/objects:$TMP/state/corral/git/'\"\\\$ATTEMPT\"'/real-objects' --mount '$TMP/state/corral/git/'\"\\\$ATTEMPT\"'/repo:$TMP/ws/.git' -W $TMP/ws " "in-place: the attempt repository over .git, the workspace"
printf '{"git": "off"}' > "$TMP/off.json"
run $E "$C" explain -p "$TMP/off.json" -w "$TMP/ws" -- true
like "$out" " -W $TMP/ws " "git off: the real workspace, .git and all"
like "$out" "^# WARNING: .git.: .off.: the agent writes the real $TMP/ws/.git" "git off: a warning"
run $E "$C" explain -w "$TMP/ws" --no-network -- true
like "$out" " --no-network " "--no-network reaches confine"
printf '{"network": {"connect": [443, 80]}, "scope": false, "minimum_tier": "fs"}' > "$TMP/n.json"
run $E "$C" explain -p "$TMP/n.json" -w "$TMP/ws" -- true
like "$out" " --connect 443 --connect 80 --filter-ip --no-scope " "ports and no scope (and the address rules)"
like "$out" "probe --require fs\\+net" "ports raise the tier to fs+net"

# the agent: inferred from a known command, else -a
run $E "$C" explain -w "$TMP/ws" -- /opt/x/claude --help
like "$out" "create .*--agent claude " "claude inferred from the command"
unlike "$out" "--signin" "no sign-in in the store: none staged"
mkdir -p "$TMP/state/corral/creds" && echo x > "$TMP/state/corral/creds/claude"
run $E "$C" explain -w "$TMP/ws" -- /opt/x/claude --help
like "$out" "--agent claude --workspace $TMP/ws --session-store $CORRAL_BIN/session-store --begin --pid \"\\\$\\\$\" --signin claude" "a stored sign-in is staged"
run $E "$C" explain -a codex -w "$TMP/ws" -- node cli.js
like "$out" "create .*--agent codex " "-a names the agent"
run $E "$C" explain -a 'Bad Name' -w "$TMP/ws" -- true
is "$rc" 2 "a bad agent name: usage"
# one agent-name rule for corral and session-store (prof_name_ok)
SS=$CORRAL_BIN/session-store
for bad in _x -x .x "$(printf 'a%.0s' $(seq 33))"; do
	run $E "$C" explain -a "$bad" -w "$TMP/ws" -- true
	is "$rc" 2 "corral refuses agent name '$bad'"
	like "$err" "^corral: usage: agent name" "corral: the rule is named for '$bad'"
	run "$SS" --store "$TMP/ss-names" begin --agent "$bad"
	is "$rc" 2 "session-store refuses agent name '$bad' too"
done
for good in a.b x_1 "$(printf 'a%.0s' $(seq 32))"; do
	run $E "$C" explain -a "$good" -w "$TMP/ws" -- true
	like "$out" "create .*--agent $good " "corral accepts agent name '$good'"
	run "$SS" --store "$TMP/ss-names" begin --agent "$good"
	is "$rc" 0 "session-store accepts agent name '$good' too"
done

# refusals
run env -i HOME=$TMP/ws PATH=/usr/bin:/bin "$C" explain -w "$TMP/ws" -- true
is "$rc:$err" "1:corral: fatal: workspace $TMP/ws holds your home directory $TMP/ws
corral: hint: run corral from a project directory, or pass -w DIR" "the home as workspace: refused"
run env -i HOME=$H PATH=/usr/bin:/bin "$C" explain -w "$TMP" -- true
like "$err" "fatal: workspace $TMP holds your home directory" "a parent of home as workspace: refused"
run env -i HOME=$H PATH=/usr/bin:/bin XDG_STATE_HOME=$TMP/ws/state "$C" explain -w "$TMP/ws" -- true
like "$rc:$err" "^1:corral: fatal: workspace $TMP/ws holds the state directory $TMP/ws/state/corral" "the store inside the workspace: refused"
printf '{"read": ["~"]}' > "$TMP/h.json"
run $E "$C" explain -p "$TMP/h.json" -w "$TMP/ws" -- true
like "$rc:$err" "^1:corral: fatal: policy \"read\" grants $H, which holds your home $H" "granting the home: refused"
printf '{"read": ["/nonexistent-corral"]}' > "$TMP/m.json"
run $E "$C" explain -p "$TMP/m.json" -w "$TMP/ws" -- true
like "$rc:$err" "^1:corral: fatal: policy \"read\" grants /nonexistent-corral: No such file or directory" "a missing path: refused"
run $E "$C" explain -w "$TMP/nope" -- true
like "$rc:$err" "^1:corral: fatal: workspace $TMP/nope: No such file or directory" "a missing workspace: refused"

# a .git file that names no git directory: refused
mkdir -p "$TMP/wt"
echo "gitdir: $TMP/elsewhere" > "$TMP/wt/.git"
run $E "$C" explain -w "$TMP/wt" -- true
is "$rc:$err" "1:corral: fatal: $TMP/wt/.git does not name a git directory
corral: hint: repair the repository (git fsck), or pass -w with a directory that is not one" "a broken gitfile: refused, with a hint"
printf '{"git_protect": false}' > "$TMP/ng.json"
run $E "$C" explain -p "$TMP/ng.json" -w "$TMP/wt" -- true
is "$rc" 0 "the old \"git_protect\": false is \"git\": \"off\""
like "$out" " -W $TMP/wt " "... a plain grant"
# a real linked worktree: worktree mode reads its common directory
git -C "$TMP/ws" -c user.name=u -c user.email=u@x commit -q --allow-empty -m init
git -C "$TMP/ws" worktree add -q "$TMP/lwt" 2>/dev/null
run $E "$C" explain -w "$TMP/lwt" -- true
like "$out" " -r $TMP/ws/.git/objects " "a linked worktree: worktree mode, the common objects"
run $E "$C" explain --in-place -w "$TMP/lwt" -- true
is "$rc:$err" "1:corral: fatal: --in-place needs the main worktree: $TMP/lwt/.git is a file (a linked worktree)
corral: hint: use --worktree (the default), which works from a linked worktree too" "a linked worktree: in-place refused, with a hint"

# PATH directories inside the home are left out, and said so
mkdir -p "$H/bin"
run env -i HOME=$H PATH=$H/bin:/usr/bin:/bin XDG_STATE_HOME=$TMP/state "$C" explain -w "$TMP/ws" -- true
like "$err" "warning: PATH directory $H/bin is in your home and no toolchain entry matches it: not granted; to grant it: \"exec\": \\[\"~/bin\"\\]" "a PATH directory in the home: left out, with a warning and the policy line"
like "$out" "^# left out: PATH directory $H/bin is in your home" "explain names it in the script too"
like "$out" "-s PATH=/usr/bin:/bin " "the child's PATH lists only granted directories"

run "$C" explain
is "$rc" 2 "explain without a command: usage"
run "$C" explain --bogus -- true
is "$rc" 2 "an unknown option: usage"
run "$C" --help
like "$out" "^ +\\[--worktree \\| --in-place\\] \\[--from-head\\] \\[--profiles FILE\\]$" "--help"
like "$out" "^ +\\[--test-cacert FILE\\] \\[--quiet\\] \\[--allow-osc N\\] \\[--env PROJECT\\]$" "--help: the run options' last line"
run "$C" --version
like "$out" "^corral [0-9]+\\.[0-9]+\\.[0-9]+$" "--version"
run "$C" frobnicate
is "$rc" 2 "an unknown command: usage"
done_testing
