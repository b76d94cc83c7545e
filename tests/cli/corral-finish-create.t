#!/bin/sh
# corral run runs home-stage create and finish as one process (create
# --finish): corral reads create's part of its output (up to an empty
# line) without waiting for its end, and the same process, still running
# while the agent does, takes back, removes and records on the go byte and
# the status (with the platform and the tier) corral writes once every
# process of the attempt has ended. Control: an agent that renews its
# sign-in: taken back, the tree removed, the end recorded; no home-stage
# finish of its own. Attack: corral killed (SIGKILL) while the agent runs:
# its input ends without the go byte: the renewal not taken back, the tree
# and the record kept, said; the next run reaps the attempt. INT, QUIT and
# HUP sent to it while it waits: ignored (control: TERM ends it, the tree
# kept and said). Fallback: a create that does not stay (a stand-in that
# drops --finish): finish is started as the agent starts, as before, and
# does the same. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
. "$CORRAL_TOP/tests/lib/provider.sh"
. "$CORRAL_TOP/tests/lib/steps.sh"
C=$CORRAL_BIN/corral
provider_start; status_ok $? "the fake provider runs over TLS on 127.0.0.1:$PORT"
t=$(now)

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	ST=$H/.local/state/corral CFG=$H/.config/corral
	mkdir -p "$W" "$CFG" "$B/old"
	cp "$PROF" "$CFG/profiles.json"; cp "$CA" "$CFG/test-ca.pem"
	claude_account "u-1-$who" >"$B/acct"
	claude_signin "tok0-$who" $((t + 3600)) >"$B/c0"
	# a step directory whose home-stage create does not stay: corral
	# copied (it finds its steps beside its real path), the rest linked
	for f in "$CORRAL_BIN"/*; do
		n=${f##*/}
		case $n in corral) cp "$f" "$B/old/$n" ;; home-stage) ;; *) ln -s "$f" "$B/old/$n" ;; esac
	done
	cat >"$B/old/home-stage" <<EOF
#!/bin/sh
# create without --finish (and its --test-cacert): it prints, and ends
if [ "\$1" = create ]; then
	for a; do
		shift
		case \$a in --finish) ;; --test-cacert) skip=1 ;; *) [ -n "\${skip:-}" ] && skip= || set -- "\$@" "\$a" ;; esac
	done
fi
exec "$CORRAL_BIN/home-stage" "\$@"
EOF
	chmod 0755 "$B/old/home-stage"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	$AS env -i HOME="$H" "$SS" put claude --agent claude --account-from "$B/acct" <"$B/c0"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C.UTF-8"
	S() { $AS env -i HOME="$H" "$SS" --store "$ST" "$@"; }
	stored() { tail -n +2 "$ST/creds/claude"; }
	trees() { ls -d "$ST"/a[0-9a-f]* 2>/dev/null | wc -l | tr -d ' '; }
	newest() { ls -t "$ST/attempts" | head -1; }
	n=0
	# renewal TOKEN: the sign-in the agent will write, each later, known
	# to the provider as this account's
	renewal() {
		n=$((n + 1))
		provider_token "$1" "u-1-$who"
		renewed=$(claude_signin "$1" $((t + 7000 + n)))
		printf '%s' "$renewed" >"$W/renewed.json"
		[ "$who" = nobody ] && chown nobody "$W/renewed.json"
		rm -f "$W/started" "$W/release"
	}
	# start [CORRAL]: a run whose agent writes the renewal, says it
	# started, and ends (5) once the test releases it
	start() {
		(cd "$W" && exec $AS $E "${1:-$C}" run -a claude --profiles "$CFG/profiles.json" --test-cacert "$CFG/test-ca.pem" \
			-- sh -c 'cp renewed.json "$HOME/.claude/.credentials.json" && : > started && while [ ! -e release ]; do sleep 0.05; done; exit 5') \
			>/dev/null 2>"$B/err" &
		cp=$!
		wait_for started
	}
	started() { [ -e "$W/started" ]; }
	release() { : >"$W/release"; wait $cp; rc=$?; err=$(cat "$B/err"); }

	# control: one process; the renewal taken back, the end recorded
	renewal "tok1-$who"
	start
	hp=$(step_of $cp "home-stage create ")
	like "$hp" "^[0-9]+\$" "$who: home-stage create runs while the agent does"
	like "$(tr '\0' ' ' </proc/$hp/cmdline)" " --begin .* --finish \$" "$who: ... with --finish"
	is "$(step_of $cp "home-stage finish ")" "" "$who: ... and no home-stage finish of its own"
	release
	is "$rc:$err" "5:" "$who: the agent's status, quietly"
	is "$(stored)" "$renewed" "$who: the renewal taken back"
	is "$(trees)" 0 "$who: the tree removed"
	id=$(newest)
	like "$(S show "$id")" "status 5
platform linux
tier full" "$who: the end recorded: status, platform and tier"
	like "$(cat "$ST/audit/$id.jsonl")" '"step":"home-stage finish","status":0,"took_back":"claude","end_status":5' "$who: the audit log names what was taken back"
	good=$renewed

	# the attack: corral killed while the agent runs
	renewal "tok2-$who"
	start
	hp=$(step_of $cp "home-stage create ")
	id=$(newest)
	kill -9 $cp
	wait $cp 2>/dev/null
	wait_for gone "$hp"
	status_ok "$(gone "$hp"; echo $?)" "$who: corral killed: home-stage ends"
	: >"$W/release"
	like "$(cat "$B/err")" "home-stage: warning: its input ended without the go byte \\(its caller gone\\): nothing taken back, removed or recorded; $ST/a[0-9a-f]{10} stays until the next run reaps it" "$who: ... having done nothing: it says so"
	is "$(stored)" "$good" "$who: ... the renewal not taken back"
	is "$(trees)" 1 "$who: ... the tree kept"
	like "$(cat "$ST"/a[0-9a-f]*/home/.claude/.credentials.json)" "tok2-$who" "$who: ... as the agent left it"
	unlike "$(S show "$id")" "status" "$who: ... the record open"
	# the next run reaps it
	run sh -c "cd '$W' && $AS $E '$C' run -a claude -- true"
	is "$rc" 0 "$who: the next run"
	is "$(trees)" 0 "$who: ... reaps the killed run's tree"
	run S show "$id"
	is "$rc" 1 "$who: ... and its record"
	is "$(stored)" "$good" "$who: ... the store as it was"

	# INT, QUIT and HUP sent to it while it waits: ignored
	renewal "tok3-$who"
	start
	hp=$(step_of $cp "home-stage create ")
	kill -INT $hp; kill -QUIT $hp; kill -HUP $hp
	sleep 0.2
	release
	is "$rc:$err" "5:" "$who: INT, QUIT and HUP to it while it waits: ignored, the run quiet"
	is "$(stored)" "$renewed" "$who: ... the renewal taken back"
	is "$(trees)" 0 "$who: ... the tree removed"
	like "$(S show "$(newest)")" "status 5" "$who: ... the end recorded"
	good=$renewed
	# control: TERM ends it
	renewal "tok4-$who"
	start
	hp=$(step_of $cp "home-stage create ")
	id=$(newest)
	kill -TERM $hp
	wait_for gone "$hp"
	release
	is "$rc" 5 "$who: control: TERM to it: the agent's status all the same"
	like "$err" "corral: warning: home-stage finish failed \\(status 143\\): the attempt directory stays until the next run reaps it" "$who: ... its end said"
	is "$(stored)" "$good" "$who: ... nothing taken back"
	is "$(trees)" 1 "$who: ... the tree kept"
	unlike "$(S show "$id")" "status" "$who: ... the record open"

	# fallback: create ends; finish started as the agent starts
	renewal "tok5-$who"
	start "$B/old/corral"
	fp=$(step_of $cp "home-stage finish ")
	like "$fp" "^[0-9]+\$" "$who: fallback: a create that ends: home-stage finish runs while the agent does"
	like "$(tr '\0' ' ' </proc/$fp/cmdline)" " --wait-input --end [0-9a-f]{32} --status - --platform linux --tier full " "$who: ... waiting for its go byte"
	is "$(step_of $cp "home-stage create ")" "" "$who: ... create has ended"
	release
	is "$rc:$err" "5:" "$who: ... the agent's status, quietly"
	is "$(stored)" "$renewed" "$who: ... the renewal taken back"
	is "$(trees)" 0 "$who: ... the tree removed (and the TERM run's reaped)"
	like "$(S show "$(newest)")" "status 5
platform linux
tier full" "$who: ... the end recorded"
}
suite root
suite nobody
done_testing
