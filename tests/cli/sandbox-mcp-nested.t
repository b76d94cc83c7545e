#!/bin/sh
# sandbox-mcp checkpoints keep every file the agent made, nested git
# repositories included (their files and their .git, as data, never a
# gitlink), and rollback, fork and snapshot-restore bring them back; `git
# init` without a commit never wedges a session. Control: the same steps on
# an ordinary directory. SDK client, root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"

for who in root nobody; do
D=$TMP/$who
mkdir -p "$D/home"
echo '{"max_sessions": 8}' > "$D/cfg.json"
SDK_AS=
if [ "$who" = nobody ]; then
	chown -R nobody:nogroup "$D"
	SDK_AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
fi
# the san build under RLIMIT_AS: no memory bound (tap.sh says why)
san_rlimit_as $SDK_AS && echo '{"max_memory_mb": 0, "max_sessions": 8}' > "$D/cfg.json"
GIT='git -c user.email=a@localhost -c user.name=agent'
cat > "$D/s" <<JSON
[{"call": "create_session", "save": {"first": "session_id"}},
 {"call": "session_bash", "args": {"command": "mkdir app plain && cd app && git init -q && echo v1 > f.txt && $GIT add f.txt && $GIT commit -qm one && echo v1 > ../plain/f.txt && echo made"}},
 {"call": "session_bash", "args": {"command": "echo v2 > app/f.txt"}},
 {"call": "session_bash", "args": {"command": "echo v2 > plain/f.txt"}},
 {"call": "session_checkpoint_label", "args": {"label": "v2"}},
 {"call": "session_bash", "args": {"command": "echo v3 > app/f.txt; echo v3 > plain/f.txt; cd app && $GIT commit -qam three"}},
 {"call": "session_rollback", "args": {"checkpoint_label": "v2"}},
 {"call": "session_bash", "args": {"command": "cat app/f.txt plain/f.txt; git -C app log --format=%s; git -C app status --porcelain"}},
 {"call": "session_fork", "args": {"label": "forked"}},
 {"call": "session_bash", "args": {"command": "cat app/f.txt plain/f.txt; git -C app log --format=%s"}},
 {"call": "session_snapshot", "save": {"snap": "snapshot"}},
 {"call": "session_restore", "args": {"snapshot": "@snap", "label": "restored"}},
 {"call": "session_bash", "args": {"command": "cat app/f.txt plain/f.txt; git -C app log --format=%s"}},
 {"call": "session_bash", "args": {"command": "mkdir w && cd w && git init -q && echo x > y && echo inited"}},
 {"call": "session_bash", "args": {"command": "echo after-init"}},
 {"call": "session_snapshot"},
 {"call": "session_fork", "args": {"label": "fork2"}},
 {"call": "session_bash", "args": {"command": "cat w/y; test -f w/.git/HEAD && echo head-kept"}},
 {"call": "session_bash", "args": {"command": "mkdir .GIT && echo q > .GIT/x && echo e > .sbx-esc-weird && echo s > .sbx-esc-.git && ln -s app/f.txt link && echo ok"}},
 {"call": "session_fork", "args": {"label": "fork3"}},
 {"call": "session_bash", "args": {"command": "cat .GIT/x .sbx-esc-weird .sbx-esc-.git; readlink link"}},
 {"call": "session_history"}]
JSON
sdk_run "$D/s" --store "$D/store" --config "$D/cfg.json"
is "$sdk_rc" 0 "$who: the script ran"
like "$(r session_bash 1)" '"exit_code":0.*made' "$who: a nested repository with a commit"
is "$(rj session_bash 2 .new_checkpoint):$(rj session_bash 3 .new_checkpoint)" "true:true" "$who: an edit in the nested repository makes a checkpoint (control: in a plain directory too)"
is "$(rj session_bash 5 .stdout)" "v2
v2
one
 M f.txt" "$who: rollback brings back the nested files and its .git (log: one, the commit three gone with it; f.txt changed since)"
is "$(rj session_bash 6 .stdout)" "v2
v2
one" "$who: fork: the nested repository whole"
is "$(rj session_bash 7 .stdout)" "v2
v2
one" "$who: snapshot then restore: the nested repository whole"
S=$D/store/sessions/$(rj create_session 1 .session_id)
c=$(rj session_bash 2 .checkpoint_id)
is "$(git --git-dir="$S/history.git" ls-tree "$c" app | cut -c1-11)" "040000 tree" "$who: in the history app is a tree, not a gitlink"
like "$(git --git-dir="$S/history.git" ls-tree -r --name-only "$c" app)" 'app/\.sbx-esc-\.git/HEAD' "$who: its .git is kept as data (escaped)"
like "$(r session_bash 8)" '"exit_code":0.*inited.*"new_checkpoint":true' "$who: git init without a commit: the command ran, a checkpoint made"
like "$(r session_bash 9)" '"exit_code":0,.*after-init' "$who: the next command works (no wedge)"
like "$(r session_snapshot 2)" '"isError":false' "$who: snapshot after git init works"
like "$(r session_fork 2)" '"isError":false' "$who: fork after git init works"
is "$(rj session_bash 10 .stdout)" "x
head-kept" "$who: the uncommitted repository is in the fork"
is "$(rj session_bash 12 .stdout)" "q
e
s
app/f.txt" "$who: .GIT, names that look escaped, and symlinks come back as they were"
unlike "$(cat "$TMP/o")" '"isError":true' "$who: no call failed"
done
done_testing
