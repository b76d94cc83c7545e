#!/bin/sh
# Real agents doing their work under corral run, end to end, driven by a
# scripted model server on loopback (tests/helpers/model-server.py): the
# model answers with tool calls, the agent's own tools run them inside the
# boundary (a shell command, a file written, a git commit), and the commit
# comes back on the corral/ branch of the user's repository (worktree git
# mode). As root and as nobody, each run in a network namespace of its own
# (loopback only: the agent may try its provider, no packet leaves).
#
# Claude Code 2.1.197: ANTHROPIC_BASE_URL at the server, allowed by the
# policy's "allow_loopback"; the key from an env file (0600), never on a
# command line. gemini-cli 0.61.0: GOOGLE_GEMINI_BASE_URL likewise, its
# auth choice from a system settings file (gemini reads one only where no
# directory above it is writable by others: in the build tree, not /tmp);
# its shell runs git with GIT_CONFIG_GLOBAL=/dev/null, so the identity
# comes from GIT_AUTHOR_* and GIT_COMMITTER_* in the policy).
#
# codex 0.171.0 (codex exec): a model provider of -c lines at the server
# (Responses API; OPENAI_BASE_URL it ignores), the key from the env file.
# The model is one codex does not know (corral-scripted): its tools are then
# plain functions, exec_command among them, rather than a JavaScript cell
# of nested tools; it has no file writer then, so the file is written by a
# command (the first command runs on a pty of codex's own, tty: true). Its
# own sandbox is off (--dangerously-bypass-approvals-and-sandbox: no
# approvals, no bubblewrap, namespaces, Landlock or seccomp of its own):
# corral is the boundary, and a sandbox of codex's inside it would need
# what corral refuses (a user namespace). Its shell gets the secret's path
# (shell_environment_policy keeps *SECRET* names once told to). The same
# run bare, in the same kind of namespace, is the control: it works, and
# there the secret is read.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
SRV=$CORRAL_TOP/tests/helpers/model-server.py
nmc=$("$CORRAL_TOP/mk/npm" agent-claude @anthropic-ai/claude-code@2.1.197) &&
nmg=$("$CORRAL_TOP/mk/npm" agent-gemini @google/gemini-cli@0.61.0) &&
nmx=$("$CORRAL_TOP/mk/npm" agent-codex @openai/codex@0.171.0)
status_ok $? "claude-code, gemini-cli and codex fetched (once) from npm"
CLB=$(dirname "$(readlink -f "$nmc/.bin/claude")")
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
GS=$CORRAL_TOP/build/agent-settings/gemini.json
# a checkout below /tmp (a clean clone, as CI makes) has a directory above it
# that others can write: then the settings go to a directory of root's in /run
if is_root && [ -n "$(p=$CORRAL_TOP; while [ "$p" != / ]; do find "$p" -maxdepth 0 -perm -0002; p=${p%/*}; p=${p:-/}; done)" ]; then
	GSD=$(mktemp -d /run/corral-e2e.XXXXXX) && GS=$GSD/gemini.json
	trap 'rm -rf "$TMP" "$GSD"' EXIT
fi
mkdir -p "${GS%/*}" && chmod 0755 "${GS%/*}" &&
printf '{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}}\n' > "$GS.$$" &&
chmod 0644 "$GS.$$" && mv -f "$GS.$$" "$GS"
status_ok $? "gemini's system settings in $GS"

# the script the model plays: a shell command (the home's secret must stay
# out of reach; gemini refuses $(...) in a command), a file written by the
# agent's own file tool, a commit
cat > "$TMP/script.json" <<'J'
[{"shell": "echo shell-ran-42; id -un | sed s/^/user=/; cat \"$CORRAL_E2E_SECRET\" 2>/dev/null || echo home-unreachable"},
 {"write": ["hello.txt", "hello from the scripted model\n"]},
 {"shell": "git add hello.txt && git commit -qm 'model: hello' && git log --format=%s -1"},
 {"text": "all done"}]
J
# inner WHO B SRV AS CMD...: inside the namespace: loopback up, the server
# started, the policy ($B/policy.in, PORT replaced) written with its port,
# the agent run under corral, the server ended (by its pid) however the run
# went
cat > "$TMP/inner" <<'S'
#!/bin/sh
who=$1 B=$2 SRV=$3 AS=$4; shift 4
ip link set lo up || exit 99
rm -f "$B/port" "$B/log"
python3 "$SRV" "$B/port" "$B/log" "$B/script.json" 2>"$B/srv.err" &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null' EXIT
n=0; while [ ! -s "$B/port" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
P=$(cat "$B/port") || exit 98
export P
sed "s/PORT/$P/g" "$B/policy.in" > "$B/cfg/policy.json"
[ "$who" = nobody ] && chown nobody:nogroup "$B/cfg/policy.json"
cd "$B/repo" && $AS "$@"
S
chmod 0755 "$TMP/inner"

# setup DIR: B, H (the user's home: a git identity, a secret), W (the
# user's repository, one commit)
setup() {
	B=$1 H=$1/home W=$1/repo
	mkdir -p "$H" "$W" "$B/cfg" "$B/state"
	cp "$TMP/script.json" "$B/script.json"
	printf '[user]\n\tname = Corral Tester\n\temail = tester@example.com\n' > "$H/.gitconfig"
	echo "TOKEN-real-home-secret" > "$H/.netrc"
	(cd "$W" && git init -q -b main && echo base > base.txt && git add base.txt &&
	    git -c user.name=U -c user.email=u@x commit -qm base)
}

suite() {	# suite AGENT WHO
	a=$1 who=$2
	setup "$TMP/$a-$who"
	case $a in
	claude)
		(umask 077 && echo "ANTHROPIC_API_KEY=sk-corral-e2e-not-a-key" > "$B/key.env")
		printf '{"network": {"allow_loopback": [PORT]},\n "env": {"set": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:PORT", "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CORRAL_E2E_SECRET": "%s"},\n  "files": ["%s"]}}\n' \
		    "$H/.netrc" "$B/key.env" > "$B/policy.in"
		P=$CLB CMD="claude.exe -p 'write hello.txt and commit it' --allowedTools Bash Write --output-format text" ;;
	gemini)
		(umask 077 && echo "GEMINI_API_KEY=sk-corral-e2e-not-a-key" > "$B/key.env")
		printf '{"network": {"allow_loopback": [PORT]}, "read": ["%s"],\n "env": {"set": {"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:PORT", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": "%s", "CORRAL_E2E_SECRET": "%s",\n  "GIT_AUTHOR_NAME": "Corral Tester", "GIT_AUTHOR_EMAIL": "tester@example.com", "GIT_COMMITTER_NAME": "Corral Tester", "GIT_COMMITTER_EMAIL": "tester@example.com"},\n  "files": ["%s"]}}\n' \
		    "$GS" "$GS" "$H/.netrc" "$B/key.env" > "$B/policy.in"
		P=$nmg/.bin CMD="gemini -p 'write hello.txt and commit it' --yolo" ;;
	codex)	# $P: the server's port, set by inner
		(umask 077 && echo "OPENAI_API_KEY=sk-corral-e2e-not-a-key" > "$B/key.env")
		printf '{"network": {"allow_loopback": [PORT]},\n "env": {"set": {"CORRAL_E2E_SECRET": "%s"}, "files": ["%s"]}}\n' \
		    "$H/.netrc" "$B/key.env" > "$B/policy.in"
		P=$nmx/.bin CMD=$CODEX ;;
	esac
	head0=$(git -C "$W" rev-parse HEAD)
	if [ $who = root ]; then AS=""; else AS=$NOBODY; chown -R nobody:nogroup "$B"; fi
	chmod 0700 "$H" "$B/cfg"
	E="env -i HOME=$H PATH=$P:/usr/bin:/bin XDG_STATE_HOME=$B/state"
	run unshare -n "$TMP/inner" $who "$B" "$SRV" "$AS" sh -c "$E timeout 600 '$C' run -p '$B/cfg/policy.json' -- $CMD"
	is "$rc" 0 "$a/$who: $a's one-shot turn under corral run ends, status 0"
	is "$(printf '%s\n' "$out" | tail -1)" "all done" "$a/$who: ... with the model's last words"
	L=$B/log
	G() { $AS env -i HOME="$H" PATH=/usr/bin:/bin git -C "$W" "$@"; }
	like "$(grep -c '"step": ' "$L" 2>/dev/null)" "^([4-9]|[1-9][0-9]+)$" "$a/$who: the agent asked the scripted model at least four times"
	like "$(grep '"step": 1,' "$L" | head -1)" "shell-ran-42.*user=$who" "$a/$who: its shell tool ran the command, as $who (the result came back to the model)"
	like "$(grep '"step": 1,' "$L" | head -1)" "home-unreachable" "$a/$who: ... inside the boundary: the real home's secret unreadable"
	if [ $a = codex ]; then
		like "$(grep '"step": 1,' "$L" | head -1)" 'shell-ran-42\\r\\n' "$a/$who: ... on a pty of its own (its output's lines end in CR LF)"
	fi
	like "$(grep '"step": 3,' "$L" | head -1)" "(File created successfully|Successfully created|Process exited with code 0.*Output:\\\\n\").*model: hello" "$a/$who: its file tool (codex: its shell) wrote the file and git committed it"
	br=$(G for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1)
	like "$br" "^corral/[0-9a-f]{8}$" "$a/$who: the work came back on a corral/ branch"
	like "$err" "corral: git: branch $br: 1 commit" "$a/$who: ... and corral said so"
	is "$(G log --format='%s|%an' -1 "$br" 2>/dev/null)" "model: hello|Corral Tester" "$a/$who: the agent's commit, with the user's git identity"
	is "$(G show "$br:hello.txt" 2>/dev/null)" "hello from the scripted model" "$a/$who: the file the agent's file tool made"
	is "$(G rev-parse "$br~1" 2>/dev/null)" "$head0" "$a/$who: on top of the user's HEAD"
	is "$(G rev-parse HEAD):$(ls "$W" | tr '\n' ' ')" "$head0:base.txt " "$a/$who: the user's checkout untouched"
	unlike "$out$err$(cat "$B/state/corral/audit.log" 2>/dev/null)" "sk-corral-e2e|real-home-secret" "$a/$who: neither the key nor the secret in the output or the audit log"
	status_ok "$([ ! -e "$H/.claude" ] && [ ! -e "$H/.claude.json" ] && [ ! -e "$H/.gemini" ] && [ ! -e "$H/.codex" ]; echo $?)" "$a/$who: nothing of the agent's landed in the real home"
	is "$(ls "$B/state/corral" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$a/$who: the attempt's home is gone afterwards"
	# control: the same secret, outside the boundary, is readable by $who
	run $AS cat "$H/.netrc"
	is "$out" "TOKEN-real-home-secret" "$a/$who: control: outside, the secret is readable"
}

CODEX='codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -m corral-scripted \
	-c model_provider=corral -c model_providers.corral.name=corral -c model_providers.corral.wire_api=responses \
	-c model_providers.corral.base_url=\"http://127.0.0.1:$P/v1\" -c model_providers.corral.env_key=OPENAI_API_KEY \
	-c shell_environment_policy.ignore_default_excludes=true "write hello.txt and commit it" </dev/null'

# codex bare (control): the same script and command, without corral, in a
# namespace of the same kind: the commit lands in the repository itself,
# and the secret is read
bare() {	# bare WHO
	who=$1
	setup "$TMP/codex-bare-$who"
	echo '{}' > "$B/policy.in"
	if [ $who = root ]; then AS=""; else AS=$NOBODY; chown -R nobody:nogroup "$B"; fi
	run unshare -n "$TMP/inner" $who "$B" "$SRV" "$AS" sh -c "env -i HOME=$H PATH=$nmx/.bin:/usr/bin:/bin OPENAI_API_KEY=sk-corral-e2e-not-a-key CORRAL_E2E_SECRET=$H/.netrc timeout 300 $CODEX"
	is "$rc:$(printf '%s\n' "$out" | tail -1)" "0:all done" "codex/$who: control: bare codex exec ends its turn with the model's last words"
	like "$(grep '"step": 1,' "$B/log" | head -1)" "shell-ran-42.*user=$who.*TOKEN-real-home-secret" "codex/$who: control: ... its shell ran the command, and bare it reads the secret"
	is "$($AS env -i HOME="$H" PATH=/usr/bin:/bin git -C "$W" log --format=%s -1)" "model: hello" "codex/$who: control: ... and committed in the repository itself"
}

for a in claude gemini codex; do
	suite $a root
	suite $a nobody
done
bare root
bare nobody
done_testing
