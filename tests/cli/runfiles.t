#!/bin/sh
# runfiles (the step corral runs for its report of files that run code):
# the report re-reads only the directories that changed since the snapshot,
# and a hostile agent cannot hide a file from it: a file changed in place in
# a directory whose times stay put, a file renamed or hard-linked into a
# directory whose mtime is then set back (utimes cannot set a ctime), a
# hard link out and a write through it, a link planted to lead the walker
# out of the tree; each with its control, and each report the same as a full
# walk's. The walker reads nothing outside the tree and writes nothing (unit
# test runfiles/narrow for the ruleset itself). As root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
RF=$CORRAL_BIN/runfiles

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who W=$TMP/$who/ws O=$TMP/$who/out
	mkdir -p "$W/.vscode" "$W/.claude" "$W/.husky" "$W/src/a/b" "$W/deep/x/y" "$W/sub/.git/hooks" "$O"
	echo '{"a":1}' > "$W/.vscode/tasks.json"
	echo 'echo user' > "$W/.envrc"
	echo 'int x;' > "$W/src/a/b/main.c"
	echo x > "$W/sub/.git/hooks/pre-commit"
	echo '{}' > "$O/mcp.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	# older than the snapshot's racy margin (100 ms): the report trusts
	# these directories' times, which is what is attacked below
	sleep 0.3
	snap() { $AS "$RF" snapshot "$W" > "$B/state"; }
	rep() { run $AS "$RF" report "$W" < "$B/state"; }
	# the same report from a full walk: every directory marked racy
	full() { sed 's/^d \([0-9]\) 0 /d \1 1 /' "$B/state" > "$B/state.full"; run $AS "$RF" report "$W" < "$B/state.full"; }
	dtimes() { stat -c '%Y.%y %Z.%z' "$1"; }

	snap
	is "$?" 0 "$who: snapshot: 0"
	is "$(grep -c '^d [0-9] 1 ' "$B/state")" 0 "$who: precondition: no directory is racy (the report takes them from the snapshot)"
	rep
	is "$rc:$out:$err" "0::" "$who: control: nothing changed, nothing named, exit 0"

	# 1. in place, same size: no directory's time moves
	before=$(dtimes "$W/.vscode")
	(cd "$W/.vscode" && $AS sh -c 'printf "{\"b\":2}\n" > tasks.json')
	is "$(dtimes "$W/.vscode")" "$before" "$who: precondition: an in-place write leaves .vscode's times as they were"
	rep
	is "$rc:$out" "1:changed .vscode/tasks.json: VS Code runs its tasks, those with \"runOn\": \"folderOpen\" on opening the folder" \
		"$who: a file changed in place in an unchanged directory: named (exit 1)"
	full
	is "$rc:$out" "1:changed .vscode/tasks.json: VS Code runs its tasks, those with \"runOn\": \"folderOpen\" on opening the folder" \
		"$who: control: a full walk names the same"

	# 2. renamed in, the directory's mtime set back
	snap
	m=$(stat -c %y "$W/.claude"); c=$(stat -c %Z.%z "$W/.claude")
	$AS sh -c "echo '{\"hooks\":1}' > '$W/src/s.json' && mv '$W/src/s.json' '$W/.claude/settings.json' && touch -m -d '$m' '$W/.claude'"
	is "$(stat -c %y "$W/.claude")" "$m" "$who: precondition: .claude's mtime set back after the rename"
	unlike "$(stat -c %Z.%z "$W/.claude")" "^$c\$" "$who: ... its ctime cannot be"
	rep
	is "$rc:$out" "1:created .claude/settings.json: Claude Code runs its hooks" "$who: renamed into a directory whose mtime is set back: named"

	# 3. hard-linked in, likewise; 4. a hard link out, and a write through it
	snap
	m=$(stat -c %y "$W/.husky"); mr=$(stat -c %y "$W")
	$AS sh -c "echo 'curl x | sh' > '$W/src/hook' && ln '$W/src/hook' '$W/.husky/pre-commit' && touch -m -d '$m' '$W/.husky' &&
		ln '$W/.envrc' '$W/src/a/e' && echo 'echo pwned' >> '$W/src/a/e'"
	is "$(stat -c %y "$W"):$(stat -c %y "$W/.husky")" "$mr:$m" "$who: precondition: the root's and .husky's mtimes are as they were"
	rep
	is "$rc:$out" "1:changed .envrc: direnv runs it on entering the directory
created .husky/pre-commit: husky runs it as a git hook: your next git commit runs it, outside corral" \
		"$who: a hard link made in (mtime set back), and .envrc written through a hard link out: both named"
	full
	is "$out" "changed .envrc: direnv runs it on entering the directory
created .husky/pre-commit: husky runs it as a git hook: your next git commit runs it, outside corral" "$who: control: a full walk names the same"

	# 5. utimes on every directory of a new deep path, and a nested repository's hook
	snap
	$AS sh -c "echo '* filter=x' > '$W/deep/x/y/.gitattributes' && touch -m -d '2001-01-01' '$W/deep/x/y' '$W/deep/x' '$W/deep' &&
		echo y > '$W/sub/.git/hooks/pre-commit' && touch -m -d '2001-01-01' '$W/sub/.git/hooks'"
	rep
	is "$rc:$out" "1:created deep/x/y/.gitattributes: git runs the filter, diff and merge drivers it names
changed sub/.git/hooks/pre-commit: git runs it as a hook of that repository" "$who: utimes on the directories: the file deep down and the nested hook named"

	# 6. a link planted to lead the walker out of the tree
	snap
	$AS ln -s "$O" "$W/.cursor"
	rep
	is "$rc:$out" "0:" "$who: .cursor -> a directory outside holding mcp.json: not followed, nothing named"
	rm "$W/.cursor" && $AS mkdir "$W/.cursor" && $AS cp "$O/mcp.json" "$W/.cursor/mcp.json"
	rep
	is "$rc:$out" "1:created .cursor/mcp.json: Cursor starts the MCP servers it names" "$who: control: a real .cursor/mcp.json is named"

	# names the agent chose, escaped; the state refused when not a snapshot
	snap
	$AS sh -c "mkdir -p '$W/.github/workflows' && printf x > '$W/.github/workflows/a
b\\c.yml'"
	rep
	is "$out" 'created .github/workflows/a\x0ab\x5cc.yml: CI runs it on your next push, with the repository'"'"'s secrets' "$who: a newline and a backslash in a name: escaped, one line"
	printf 'corral-runfiles 1\nd 0 0 1 2 3 4 5 6 7 8 \nf 99 1 0 0 %064d .envrc\nend\n' 0 > "$B/bad"
	run $AS "$RF" report "$W" < "$B/bad"
	is "$rc:$err" "2:runfiles: fatal: the state on standard input is not a snapshot of runfiles: line 3: malformed
runfiles: hint: give it what runfiles snapshot $W wrote" "$who: a state with an unknown rule: refused, exit 2"
	head -c 40 "$B/state" > "$B/cut"
	run $AS "$RF" report "$W" < "$B/cut"
	like "$rc:$err" "^2:runfiles: fatal: the state on standard input is not a snapshot of runfiles: line 2: no end of line" "$who: a state cut short: refused"
	# with the git configs to read (as corral run passes them): exit 0, the
	# state whole (the san build's LeakSanitizer ended it with 1, so corral
	# run warned "unable to look for files that run code": the list of
	# configs was never freed)
	printf '[core]\n' > "$B/gitconfig"
	run $AS "$RF" snapshot --git-config="$B/gitconfig" "$W"
	is "$rc:$err" "0:" "$who: snapshot --git-config: exit 0, nothing said"
	is "$(printf '%s\n' "$out" | sed -n '1p;$p' | tr '\n' '|')" "corral-runfiles 1|end|" "$who: ... the state whole"
}

suite root
suite nobody

# watch (corral run's): the snapshot kept in its memory, "taken", then the
# report only after the go byte on its input. Control: the byte, and a
# change made after "taken" is named. Attack stand-in (its caller killed):
# the input ended without it: no report, nothing of the tree read after
# the snapshot (strace, where there is one), said.
Wd=$TMP/watch
mkdir -p "$Wd/src"
echo 'echo user' > "$Wd/.envrc"
sleep 0.3
mkfifo "$TMP/go"
watch_start() {	# watch_start [WRAPPER...]: runs, "taken" read, fd 3 its input
	: > "$TMP/wout"
	"$@" "$RF" watch "$Wd" < "$TMP/go" > "$TMP/wout" 2> "$TMP/werr" &
	wp=$!
	exec 3> "$TMP/go"
	i=0
	while [ "$(cat "$TMP/wout")" != taken ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
}
watch_start
is "$(cat "$TMP/wout")" taken "watch: says taken once the snapshot is taken"
echo 'echo changed' > "$Wd/.envrc"
printf g >&3
exec 3>&-
wait $wp
is "$?:$(cat "$TMP/wout"):$(cat "$TMP/werr")" "1:taken
changed .envrc: direnv runs it on entering the directory:" "watch: control: the go byte: the change made after the snapshot named, exit 1"
tracer=
command -v strace >/dev/null && tracer="strace -o $TMP/wtrace -e trace=read,openat,getdents64,newfstatat,statx,readlinkat env $untraced"
watch_start $tracer
echo 'echo again' > "$Wd/.envrc"
exec 3>&-
wait $wp
is "$?:$(cat "$TMP/wout")" "2:taken" "watch: its input ended without the go byte: exit 2, no report"
is "$(cat "$TMP/werr")" "runfiles: fatal: no report: its input ended without the go byte (its caller gone)" "... said"
if [ -n "$tracer" ]; then
	is "$(sed -n '/^read(0, "", /,$p' "$TMP/wtrace" | grep -cE '^(openat|getdents64|newfstatat|statx|readlinkat)\(')" 0 "... nothing of the tree read after its input ended"
	status_ok "$(grep -cE '^getdents64\(' "$TMP/wtrace" | grep -qv '^0$'; echo $?)" "... (control: the snapshot read it)"
else
	skip "no strace"
	skip "no strace"
fi

# in corral run: the snapshot is kept where the agent cannot reach it (the
# memory of runfiles watch), and an agent that tries to plant one in the
# attempt's directory (to hide its .envrc) is refused; the report still
# names the file (control: the state was there to compare)
H=$TMP/home N=$TMP/nogit
mkdir -p "$H" "$N" && chmod 0700 "$H"
echo 'echo user' > "$N/.envrc"
sleep 0.3
cat > "$N/agent.sh" <<'AGENT'
echo 'echo pwned' > .envrc
(printf 'corral-runfiles 1\nend\n' > "$HOME/../runfiles") 2>/dev/null && echo rewrote
ls "$HOME/.." >/dev/null 2>&1 && echo listed
exit 0
AGENT
run env -i HOME="$H" PATH=/usr/bin:/bin sh -c "cd '$N' && '$CORRAL_BIN/corral' run -- sh agent.sh"
is "$rc:$out" "0:" "corral run: the agent can neither rewrite nor list the attempt's directory (where the snapshot is)"
is "$err" "corral: warning: this run created or changed 1 file in $N that runs code on your machine:
corral:   changed .envrc: direnv runs it on entering the directory" "corral run: its change is named all the same"
is "$(ls -A "$N" | tr '\n' ' ')" ".envrc agent.sh " "corral run: no state in the workspace"
done_testing
