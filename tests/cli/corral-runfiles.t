#!/bin/sh
# After every run, the files it created or changed that run code on the
# user's machine are named, with what runs them (supervisor/runfiles.c):
# on stderr and in the audit log, or in the audit log only with --quiet;
# with git (the agent's own checkout: worktree mode) and without, nested
# repositories and core.hooksPath included; no
# report for a run that touches only ordinary sources. As root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
HEAD="this run created or changed"

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws N=$TMP/$who/nogit
	ST=$H/.local/state/corral
	mkdir -p "$H" "$W/src" "$N"
	printf 'int main(void) { return 0; }\n' >"$W/src/main.c"
	echo 'echo user' >"$W/.envrc"
	(cd "$W" && git init -q && git config core.hooksPath .githooks && mkdir -p sub && cd sub && git init -q)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C.UTF-8"
	R() { d=$1; shift; (cd "$d" && $AS $E "$C" run "$@"); }
	lastaudit() { cat "$ST/audit/$(ls -t "$ST/audit" | grep -v mcp | head -1)"; }
	# the report, git's own lines aside, the agent's checkout as CHECKOUT
	rep() { printf '%s\n' "$err" | grep -v '^corral: \(warning: \)\{0,1\}git: ' | sed "s|$ST/git/co/[0-9a-f]*\.[0-9]*/[^/ ]*|CHECKOUT|"; }

	# control: ordinary sources only
	run R "$W" -- sh -c 'echo "int x;" >> src/main.c; printf "all:\n\ttrue\n" > Makefile; echo "{\"scripts\":{\"postinstall\":\"x\"}}" > package.json; echo doc > README.md; echo "echo user" > .envrc'
	is "$rc:$(rep)" "0:" "$who: control: a run that touches only ordinary sources (and rewrites .envrc unchanged) reports nothing"
	lastaudit | grep -q '"step":"run-files"'; status_ok $((! $?)) "$who: control: no run-files line in the audit log"

	# every kind in the table the run creates or changes
	run R "$W" -- sh -c 'mkdir -p .vscode .claude .gemini .codex .husky .githooks &&
		echo "{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}" > .vscode/tasks.json &&
		echo "echo pwned" > .envrc && echo "{}" > .mcp.json && echo "{\"hooks\":{}}" > .claude/settings.json &&
		echo "{}" > .gemini/settings.json && echo "notify = [\"x\"]" > .codex/config.toml &&
		echo "x" > .husky/pre-commit && echo "*.c filter=evil" > .gitattributes &&
		printf "[submodule \"x\"]\n\turl = ext::sh -c x\n" > .gitmodules && echo x > .githooks/pre-push &&
		echo "int y;" > src/y.c'
	is "$rc" 0 "$who: the run that plants them completes (nothing is blocked)"
	is "$(rep)" "corral: warning: $HEAD 10 files in CHECKOUT that run code on your machine:
corral:   created .claude/settings.json: Claude Code runs its hooks
corral:   created .codex/config.toml: Codex starts the MCP servers and runs the notify program it names
corral:   changed .envrc: direnv runs it on entering the directory
corral:   created .gemini/settings.json: Gemini CLI runs its hooks and starts its MCP servers
corral:   created .gitattributes: git runs the filter, diff and merge drivers it names
corral:   created .githooks/pre-push: git runs it as a hook (core.hooksPath)
corral:   created .gitmodules: git submodule update fetches the URLs it names and runs its update commands
corral:   created .husky/pre-commit: husky runs it as a git hook: your next git commit runs it, outside corral
corral:   created .mcp.json: Claude Code starts the MCP servers it names
corral:   created .vscode/tasks.json: VS Code runs its tasks, those with \"runOn\": \"folderOpen\" on opening the folder" "$who: one short report: each file, created or changed, with what runs it (src/y.c is not one)"
	like "$(lastaudit | grep '"step":"run-files"')" "\"root\":\"$ST/git/co/[0-9a-f]+\\.[0-9]+/[^/]+\",\"files\":\\[\"created .claude/settings.json: Claude Code runs its hooks\",\"created .codex" "$who: the same report in the audit log"
	is "$(lastaudit | grep '"step":"run-files"' | grep -o '"created\|"changed' | wc -l)" 10 "$who: ... all ten"
	unlike "$(lastaudit)" "pwned|evil|ext::" "$who: the audit log names files, never their content"

	# unchanged since: nothing; changed again: named again; a link
	run R "$W" -- true
	is "$rc:$(rep)" "0:" "$who: a run that changes none of them reports nothing"
	run R "$W" --quiet -- sh -c 'echo "{\"v\":2}" > .mcp.json'
	is "$rc:$(rep)" "0:" "$who: --quiet: nothing on stderr"
	like "$(lastaudit | grep '"step":"run-files"')" '"files":\["created .mcp.json: Claude Code starts' "$who: --quiet: the report is in the audit log"

	# without git
	run R "$N" -- sh -c 'echo "echo hi" > .envrc; mkdir .vscode; echo "{}" > .vscode/settings.json; mkdir -p sub/.git/hooks; echo x > sub/.git/hooks/post-checkout; echo x > sub/.git/HEAD'
	is "$err" "corral: warning: $HEAD 3 files in $N that run code on your machine:
corral:   created .envrc: direnv runs it on entering the directory
corral:   created .vscode/settings.json: VS Code runs the interpreters, tools and terminal profiles it names
corral:   created sub/.git/hooks/post-checkout: git runs it as a hook of that repository" "$who: without git, the same report; a nested repository's hook"
	D=$(printf 'd/%.0s' $(seq 1 40))
	run R "$N" -- sh -c "mkdir -p .cargo .config/mise .zed .idea/runConfigurations .devcontainer .github/workflows $D &&
		echo x > lefthook.yml && echo x > .lefthook.yml && echo x > .cargo/config.toml && echo x > .config/mise/config.toml &&
		echo x > .zed/tasks.json && echo x > .idea/runConfigurations/run.xml && echo x > .devcontainer/Dockerfile &&
		echo x > .github/workflows/ci.yml && git init -q --bare vendor/lib.git && rm vendor/lib.git/hooks/*.sample && echo x > vendor/lib.git/hooks/post-update &&
		echo '* filter=x' > ${D}.gitattributes && echo x > ${D}notes.txt"
	is "$err" "corral: warning: $HEAD 11 files in $N that run code on your machine:
corral:   created .cargo/config.toml: cargo runs the runners, linkers and aliases it names on the next cargo command
corral:   created .config/mise/config.toml: mise runs its hooks and tasks on entering the directory
corral:   created .devcontainer/Dockerfile: dev container tools run its initializeCommand on this machine
corral:   created .github/workflows/ci.yml: CI runs it on your next push, with the repository's secrets
corral:   created .idea/runConfigurations/run.xml: IntelliJ IDEs run its run configuration
corral:   created .lefthook.yml: lefthook runs the commands it names as git hooks: your next git commit runs them
corral:   created .zed/tasks.json: Zed runs its tasks
corral:   created ${D}.gitattributes: git runs the filter, diff and merge drivers it names
corral:   created lefthook.yml: lefthook runs the commands it names as git hooks: your next git commit runs them
corral:   created vendor/lib.git/config: git runs what it names (core.pager, core.fsmonitor, hooksPath, aliases) when used in that bare repository
corral:   created vendor/lib.git/hooks/post-update: git runs it as a hook of that bare repository" "$who: lefthook, mise, cargo, zed, IntelliJ, dev container, workflows, a bare repository and a file 40 levels down: named, nothing looked for in part"
	run R "$N" -- sh -c 'rm .envrc && ln -s /etc/passwd .envrc'
	is "$err" "corral: warning: $HEAD 1 file in $N that runs code on your machine:
corral:   changed .envrc (a symbolic link): direnv runs it on entering the directory" "$who: .envrc replaced by a link: named"
}

suite root
suite nobody
done_testing
