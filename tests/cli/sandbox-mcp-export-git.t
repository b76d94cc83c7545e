#!/bin/sh
# sandbox-mcp session_export never writes what makes the user's tools run
# code: no git control file at any depth (.git directories, .git files
# naming a gitdir, directories git takes for a repository, the hooks
# directory core.hooksPath names), none of the files corral's after-run
# report knows (lib/runrules.c); into the user's repository its .git stays
# untouched; the answer says what was left out and why. Afterwards the
# user's own `git status` and `git checkout` run outside and a marker shows
# nothing ran. Control: the same workspace copied by plain cp makes the same
# git commands run the agent's code. Root and nobody; SDK client.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"

for who in root nobody; do
D=$TMP/$who M=$TMP/$who/markers
mkdir -p "$D/home" "$D/exp" "$M"
chmod 0777 "$M"
# the user's git: their own environment, no system config
ug() { $UAS env -i PATH=/usr/bin:/bin HOME="$D/home" GIT_CONFIG_NOSYSTEM=1 git "$@"; }
UAS=
SDK_AS=
if [ "$who" = nobody ]; then
	chown -R nobody:nogroup "$D"
	UAS=as_nobody
	SDK_AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
fi
ug config --global user.name user && ug config --global user.email user@localhost &&
	ug config --global init.defaultBranch main
# the user's repository beneath export_root, with a hook of their own
U=$D/exp/userrepo
ug init -q "$U" && echo user > "$U/README" && ug -C "$U" add README && ug -C "$U" commit -qm init
printf '#!/bin/sh\necho users-own-hook\n' > "$U/.git/hooks/pre-commit"
chmod +x "$U/.git/hooks/pre-commit"
[ "$who" = nobody ] && chown -R nobody:nogroup "$U"
cfgsum=$(sha256sum < "$U/.git/config") hooksum=$(sha256sum < "$U/.git/hooks/pre-commit")
# a second repository of the user, whose hooks live in .githooks
ug init -q "$D/exp/hp" && ug -C "$D/exp/hp" config core.hooksPath .githooks
# the san build under RLIMIT_AS: no memory bound (tap.sh says why)
nomem=
san_rlimit_as $SDK_AS && nomem='"max_memory_mb": 0, '
echo "{$nomem\"export_root\": \"$D/exp\", \"max_sessions\": 4}" > "$D/cfg.json"
[ "$who" = nobody ] && chown nobody "$D/cfg.json" "$D/exp/hp" -R

# what the agent writes: every way of making the user's git (and tools) run
# a command, each touching a marker of its own
cat > "$D/payload.sh" <<SH
set -e
mkdir -p .git/hooks src sub evil/objects evil/refs app .vscode .githooks
printf '[core]\n\tfsmonitor = "touch $M/fsmonitor; false"\n[filter "evil"]\n\tclean = "touch $M/filter; cat"\n\tsmudge = "touch $M/smudge; cat"\n' > .git/config
printf '#!/bin/sh\ntouch $M/post-checkout\n' > .git/hooks/post-checkout
printf '#!/bin/sh\ntouch $M/pre-commit\n' > .git/hooks/pre-commit
chmod +x .git/hooks/*
printf '* filter=evil\n' > .gitattributes
printf 'gitdir: ../evil\n' > sub/.git
echo 'ref: refs/heads/main' > evil/HEAD
printf '[core]\n\tfsmonitor = "touch $M/sub-fsmonitor; false"\n\tbare = false\n\tworktree = ../sub\n' > evil/config
git init -q app && git -C app config core.fsmonitor "touch $M/app-fsmonitor; false"
echo nested > app/file.txt
printf '#!/bin/sh\ntouch $M/githooks\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit
echo 'touch $M/envrc' > .envrc
echo '{"tasks":[{"command":"touch $M/vscode","runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json
echo 'int main(void) { return 0; }' > src/main.c
echo agent-notes > sub/notes.txt
SH
cat > "$D/s1" <<JSON
[{"call": "create_session"},
 {"call": "session_bash", "args": {"command": "PAYLOAD"}},
 {"call": "session_export", "args": {"output_dir": "userrepo"}},
 {"call": "session_export", "args": {"output_dir": "fresh"}},
 {"call": "session_export", "args": {"output_dir": "hp", "keys": [".githooks"]}},
 {"call": "session_export", "args": {"output_dir": "plain", "keys": [".githooks"]}},
 {"call": "session_export", "args": {"output_dir": "keyed", "keys": ["app/.git/config", "app"]}},
 {"call": "session_export", "args": {"output_dir": "userrepo/.git/hooks"}},
 {"call": "get_session_state"}]
JSON
echo 'echo payload-written' >> "$D/payload.sh"
jq --rawfile p "$D/payload.sh" '(.[] | select(.args.command == "PAYLOAD") | .args.command) = $p' "$D/s1" > "$D/s1.json"
sdk_run "$D/s1.json" --store "$D/store" --config "$D/cfg.json"
is "$sdk_rc" 0 "$who: the script ran"
like "$(r session_bash)" '"exit_code":0.*payload-written' "$who: the agent wrote its payload"
W=$D/store/sessions/$(rj create_session 1 .session_id)/workspace
is "$(rj session_export 1 .isError)" null "$who: export into the user's repository answers"
like "$(r session_export 1)" '"isError":false' "$who: export into the user's repository succeeds"
lo=$(rj session_export 1 '[.left_out[] | .path] | sort | join(" ")')
is "$lo" ".envrc .git .gitattributes .vscode/tasks.json app/.git evil sub/.git" "$who: left out: each git control file and run file"
like "$(rj session_export 1 '.left_out[] | select(.path==".git") | .reason')" 'git control file' "$who: the reason for .git"
like "$(rj session_export 1 '.left_out[] | select(.path=="evil") | .reason')" 'take for a repository' "$who: the reason for a gitdir-looking directory"
like "$(rj session_export 1 '.left_out[] | select(.path==".envrc") | .reason')" '^direnv runs it' "$who: the reason for .envrc (corral's table)"
is "$(rj session_export 1 .left_out_count)" 7 "$who: left_out_count"
is "$(cat "$U/src/main.c" "$U/app/file.txt" "$U/sub/notes.txt" 2>&1)" "int main(void) { return 0; }
nested
agent-notes" "$who: the ordinary files arrived, nested ones too"
is "$(sha256sum < "$U/.git/config"):$(sha256sum < "$U/.git/hooks/pre-commit")" "$cfgsum:$hooksum" "$who: the user's .git/config and hook are untouched"
status_ok $([ ! -e "$U/.git/hooks/post-checkout" ] && [ ! -e "$U/.gitattributes" ] && [ ! -e "$U/sub/.git" ] &&
	[ ! -e "$U/app/.git" ] && [ ! -e "$U/evil" ] && [ ! -e "$U/.envrc" ] && [ ! -e "$U/.vscode/tasks.json" ]; echo $?) \
	"$who: none of them is in the user's tree"
# the user's own git, outside, afterwards
run ug -C "$U" status --porcelain
is "$rc" 0 "$who: git status in the user's repository"
run ug -C "$U" checkout -q -b after
is "$rc" 0 "$who: git checkout -b"
ug -C "$U" add -A && run ug -C "$U" commit -qm agent-work
like "$rc:$out$err" '^0:users-own-hook' "$who: git commit runs the user's own hook, not the agent's"
run ug -C "$U" checkout -q main
is "$rc" 0 "$who: git checkout main"
run ug -C "$U/sub" status --porcelain
run ug -C "$U/app" status --porcelain
is "$(ls "$M")" "" "$who: no marker: nothing of the agent ran"
# a fresh output directory: no repository made there
is "$(find "$D/exp/fresh" -iname .git | wc -l):$(rj session_export 2 .left_out_count)" "0:7" "$who: a fresh output directory gets no .git at any depth"
run ug -C "$D/exp/fresh" status
run ug -C "$D/exp/fresh/sub" status
is "$(ls "$M")" "" "$who: git in the fresh directory runs nothing"
# core.hooksPath: where it points, the files are hooks and stay out
is "$(rj session_export 3 '.left_out[0].path'):$([ -e "$D/exp/hp/.githooks/pre-commit" ]; echo $?)" ".githooks:1" "$who: the directory core.hooksPath names is left out"
like "$(rj session_export 3 '.left_out[0].reason')" 'core.hooksPath' "$who: and says why"
is "$(rj session_export 4 .left_out_count):$([ -f "$D/exp/plain/.githooks/pre-commit" ]; echo $?)" "0:0" "$who: control: where no hooksPath names it, .githooks is an ordinary directory"
# keys through a .git, and an output_dir in one
is "$(rj session_export 5 '[.left_out[].path]|join(" ")'):$(cat "$D/exp/keyed/app/file.txt")" "app/.git/config app/.git:nested" "$who: a key through .git is left out, the rest of its directory exported"
like "$(r session_export 6)" '"isError":true.*in a \.git directory' "$who: an output_dir in a .git directory refused"
# control: the same workspace copied plainly runs the agent's code
ug clone -q "$U" "$D/ctl" 2>/dev/null
$UAS cp -r "$W/." "$D/ctl/"
ug -C "$D/ctl" status >/dev/null 2>&1
ug -C "$D/ctl" checkout -q -b c2 >/dev/null 2>&1
ug -C "$D/ctl/sub" status >/dev/null 2>&1
like "$(ls "$M" | tr "\n" " ")" "fsmonitor .*post-checkout .*sub-fsmonitor" "$who: control: a plain copy makes the same git commands run the agent's code"
done
done_testing
