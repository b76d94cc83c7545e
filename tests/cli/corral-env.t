#!/bin/sh
# Project environments: corral env set (the value on stdin, never argv),
# list (names only), rm; kept 0600 in the session store; corral run --env
# PROJECT (or the policy's env.project) releases them to the attempt once,
# into env-filter's layer 2 through a pipe: a second release for the same
# attempt is refused, the agent's own layer wins (a project HOME never
# reaches it), and the value is on no /proc/*/cmdline during the run, in
# neither the workspace nor the audit log nor explain. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
SS=$CORRAL_BIN/session-store
C=$CORRAL_BIN/corral

wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	ST=$H/.local/state/corral
	mkdir -p "$H/.config/corral" "$W"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C.UTF-8"
	V="npm-SECRET-VALUE-$who-$$"
	CV() { $AS $E "$C" env "$@"; }
	R() { (cd "$W" && $AS $E "$C" run "$@"); }

	# set, list, rm
	run sh -c "printf '%s\n' '$V' | $AS $E $C env set web NPM_TOKEN"
	is "$rc:$out:$err" "0::" "$who: env set takes the value on stdin, quietly"
	printf 'postgres://u:pw-%s@db/x' "$who" | CV set web DATABASE_URL
	run CV list web
	is "$rc:$out" "0:NPM_TOKEN
DATABASE_URL" "$who: env list prints the names, one a line"
	unlike "$out$err" "SECRET|pw-" "$who: env list prints no value"
	is "$(stat -c %a "$ST/env/web")" 600 "$who: the project's values are kept 0600 in the store"
	is "$(stat -c %a "$ST/env")" 700 "$who: ... in a 0700 directory of the store"
	grep -q "^NPM_TOKEN=$V\$" "$ST/env/web"; status_ok $? "$who: the value is stored whole, the newline dropped"
	printf 'other' | CV set web DATABASE_URL
	is "$(grep -c DATABASE_URL "$ST/env/web")" 1 "$who: set again replaces the value"
	run CV rm web DATABASE_URL
	is "$rc:$(CV list web)" "0:NPM_TOKEN" "$who: env rm removes one"
	run CV rm web DATABASE_URL
	is "$rc:$err" "1:session-store: fatal: project web has no variable DATABASE_URL" "$who: rm of a name not there: 1, said"
	run CV list nothing
	is "$rc:$out" "0:" "$who: a project never set lists nothing"

	# refused names and values, each with its line and nothing stored
	run sh -c "echo /evil | $AS $E $C env set web HOME"
	is "$rc:$err" "1:corral: fatal: HOME cannot be a project variable: the agent's own layer sets it for every attempt
corral: hint: pick another name; corral env list web shows what the project has" "$who: HOME refused at set (1), with a hint"
	run sh -c "echo k | $AS $E $C env set web ANTHROPIC_API_KEY"
	is "$rc:$err" "1:corral: fatal: ANTHROPIC_API_KEY cannot be a project variable: the agent's sign-in is the one corral stages
corral: hint: pick another name; corral env list web shows what the project has" "$who: the sign-in's variable refused"
	run sh -c "echo /x | $AS $E $C env set web CLAUDE_CONFIG_DIR"
	like "$rc:$err" "^1:corral: fatal: CLAUDE_CONFIG_DIR cannot be a project variable: the agent's configuration lives where corral puts it" "$who: the config path refused"
	run sh -c "echo /x.so | $AS $E $C env set web LD_PRELOAD"
	is "$rc:$(echo "$err" | tail -n 1)" "1:corral: fatal: LD_PRELOAD cannot be a project variable: env-filter never passes it" "$who: a name env-filter never passes is refused at set, not at run"
	like "$err" "^env-filter: fatal: -s: LD_PRELOAD never passes: dynamic loader variable" "$who: ... env-filter's own rule, said by env-filter"
	run sh -c "printf 'a\nb' | $AS $E $C env set web MULTI"
	is "$rc:$err" "1:session-store: fatal: the value of MULTI holds a newline, carriage return or NUL byte: a variable is one line" "$who: a value of two lines refused"
	run CV set web 9BAD
	is "$rc:$err" "2:corral: fatal: bad variable name \"9BAD\" (want a letter or _, then letters, digits or _, at most 128)" "$who: a bad name: 2"
	run CV set Web NAME
	like "$rc:$err" "^2:corral: fatal: bad project name \"Web\"" "$who: a bad project name: 2"
	is "$(CV list web)" "NPM_TOKEN" "$who: nothing refused was stored"

	# a project HOME and CLAUDE_CONFIG_DIR written around corral env set
	# (session-store itself takes any name): the agent's layer still wins
	printf '/evil-home' | $AS $E "$SS" env-set web HOME
	printf '/evil-cfg' | $AS $E "$SS" env-set web CLAUDE_CONFIG_DIR

	# the run: the agent has the value; no command line, workspace or log does
	rm -f "$W/started" "$W/go"
	[ "$who" = nobody ] && chown nobody:nogroup "$W"
	R --env web -- sh -c 'printf "%s\n" "$HOME" > started; while [ ! -e go ]; do sleep 0.05; done; printf "%s|%s|%s" "$NPM_TOKEN" "$HOME" "${CLAUDE_CONFIG_DIR-unset}"' \
		>"$B/out" 2>"$B/err" &
	rpid=$!
	wait_for "$W/started"; status_ok $? "$who: the agent started"
	tree=$(sed -n 's|^\(.*/a[0-9a-f]\{10\}\)/home$|\1|p' "$W/started")
	att=$(cat "$tree/id")
	like "$att" '^[0-9a-f]{32}$' "$who: the attempt's id, from the tree of the agent's HOME"
	# while it runs: every command line on the machine, and a control
	python3 -c 'import time; time.sleep(30)' "CONTROL-MARK-$who" &
	cpid=$!
	i=0	# until it has exec'd (a bound on waiting)
	while ! { tr '\0' ' ' <"/proc/$cpid/cmdline"; } 2>/dev/null | grep -q "CONTROL-MARK-$who" && [ $i -lt 600 ]; do
		sleep 0.05; i=$((i + 1))
	done
	found=0 control=0
	for f in /proc/[0-9]*/cmdline; do
		c=$( { tr '\0' ' ' <"$f"; } 2>/dev/null) || continue
		case $c in *"$V"*) found=$((found + 1)) ;; esac
		case $c in *"CONTROL-MARK-$who"*) control=$((control + 1)) ;; esac
	done
	kill $cpid; wait $cpid 2>/dev/null
	is "$control" 1 "$who: control: the scan finds a marker on a command line"
	is "$found" 0 "$who: the value is on no /proc/*/cmdline while the agent runs"
	run $AS $E "$SS" env-release web --attempt "$att"
	is "$rc:$out" "1:" "$who: a second release for the same attempt is refused (1), nothing written"
	is "$err" "session-store: fatal: release refused: the environment of project web was already released for attempt $att" "$who: ... in one line"
	touch "$W/go"
	wait $rpid
	is "$?" 0 "$who: the run ends 0"
	out=$(cat "$B/out")
	is "${out%%|*}" "$V" "$who: the agent got the project's value (layer 2)"
	like "$out" "^[^|]*\|$tree/home\|unset\$" "$who: the agent's own HOME wins over the project's; its config path was not overridden"
	like "$(cat "$B/err")" "corral: warning: project web: HOME left out: the agent's own layer sets it for every attempt" "$who: the left-out name is said, its value not"
	unlike "$(cat "$B/err")" "evil|SECRET" "$who: no value on stderr"
	grep -rq "$V" "$W"; status_ok $((! $?)) "$who: the value is nowhere in the workspace"
	ls "$ST/audit/$att"* >/dev/null 2>&1; status_ok $? "$who: the attempt has an audit log"
	grep -q '"project environment"' "$ST/audit/$att.jsonl" && grep -q '"NPM_TOKEN"' "$ST/audit/$att.jsonl"
	status_ok $? "$who: the audit log names the project's variables"
	grep -rq "$V" "$ST/audit"; status_ok $((! $?)) "$who: the value is nowhere in the audit log"
	is "$(grep -rl "$V" "$ST" | sed "s|$ST/||")" "env/web" "$who: in the store, the value is only in env/web"
	ls "$ST" | grep -q '^a[0-9a-f]\{10\}$'; status_ok $((! $?)) "$who: the attempt's tree is gone"

	# explain: the release and the descriptor, no value
	run sh -c "cd $W && $AS $E $C explain --env web -- sh"
	like "$out" "CORRAL_ENV=\\$\\(.*/session-store --store $ST env-release web --attempt \"\\\$ATTEMPT\"\\) \\|\\| exit 125" "$who: explain shows the release"
	like "$out" "env-filter --baseline .* -F 3 " "$who: ... and env-filter reading it from descriptor 3"
	unlike "$out" "$V|SECRET" "$who: explain prints no value"

	# the policy key names the project
	printf '{"env": {"project": "web"}}\n' > "$H/.config/corral/p.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$H/.config"
	run R -p "$H/.config/corral/p.json" -- sh -c 'printf %s "$NPM_TOKEN"'
	is "$rc:$out" "0:$V" "$who: the policy's env.project releases the values too"
	printf '{"env": {"project": "Web!"}}\n' > "$H/.config/corral/bad.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$H/.config"
	run $AS $E "$C" policy check "$H/.config/corral/bad.json"
	like "$rc:$err" "^1:corral: fatal: policy .*bad.json:1:21: \"env.project\" \"Web!\" must be" "$who: a bad env.project fails policy check"

	# "~" in env.files is the home: policy check and the run agree
	K=$H/.config/corral/keys.env
	printf 'KEYS_TOKEN=keys-%s\n' "$who" > "$K"
	chmod 0600 "$K"
	printf '{"env": {"files": ["~/.config/corral/keys.env"]}}\n' > "$H/.config/corral/t.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$H/.config"
	run $AS $E "$C" policy check "$H/.config/corral/t.json"
	like "$rc:$out" "^0:$H/.config/corral/t.json: valid" "$who: ~ in env.files: policy check accepts it"
	run R -p "$H/.config/corral/t.json" -- sh -c 'printf %s "$KEYS_TOKEN"'
	is "$rc:$out:$err" "0:keys-$who:" "$who: ~ in env.files: the run reads ~/.config/corral/keys.env"
	run sh -c "cd $W && $AS $E $C explain -p $H/.config/corral/t.json -- sh"
	like "$out" " -f $H/.config/corral/keys.env " "$who: ~ in env.files: explain names the home's path"
	chmod 0644 "$K"
	run $AS $E "$C" policy check "$H/.config/corral/t.json"
	is "$rc:$err" "1:corral: fatal: policy $H/.config/corral/t.json: \"env.files\": ~/.config/corral/keys.env: readable by group or others (mode 0644)
corral: hint: an env file is a regular file you own, mode 0600 (chmod 600 $K)" "$who: an env file others can read: policy check refuses it (1)"
	run R -p "$H/.config/corral/t.json" -- sh -c 'echo AGENT-RAN'
	is "$rc:$out:$err" "125::corral: fatal: policy \"env.files\": ~/.config/corral/keys.env: readable by group or others (mode 0644)
corral: hint: an env file is a regular file you own, mode 0600 (chmod 600 $K)" "$who: ... and the run refuses it the same way, before anything starts"
	rm -f "$K"
	run $AS $E "$C" policy check "$H/.config/corral/t.json"
	is "$rc:$err" "1:corral: fatal: policy $H/.config/corral/t.json: \"env.files\": ~/.config/corral/keys.env: No such file or directory
corral: hint: an env file is a regular file you own, mode 0600 (chmod 600 $K)" "$who: a missing env file: policy check refuses it"
	run $AS env -i PATH=/usr/bin:/bin "$C" policy check "$H/.config/corral/t.json"
	like "$rc:$err" "^1:corral: fatal: policy .*: \"env.files\" names ~/.config/corral/keys.env, but HOME is not set" "$who: ~ without a HOME: refused"

	# fail closed: a project with nothing stored
	run R --env nothing -- sh -c 'echo AGENT-RAN'
	is "$rc" 125 "$who: --env of a project never set: 125"
	unlike "$out" "AGENT-RAN" "$who: ... and the agent never started"
	like "$err" "session-store: fatal: project environment nothing: No such file or directory
session-store: hint: set its variables with: corral env set nothing NAME
corral: fatal: the environment of project nothing was not released \(session-store status 1\): nothing was started" "$who: ... each step says why, with the hint"
}

suite root
suite nobody
done_testing
