#!/bin/sh
# corral run sets the chain up beside the proof and holds the agent's
# program at confine --gate until the proof is in. An attack on the order:
# a stand-in probe (in a copy of the step directory) that answers only once
# this run's chain is held at its gate (confine in read(2) on the gate
# descriptor) and then fails: the chain was set up, yet the program never
# runs (its marker never appears), corral says nothing was started, 125,
# the attempt is closed as refused and no process is left. Control: the
# same stand-in passing: the program runs. The same for home-stage create:
# the chain is started before create has made the attempt's directory
# (confine opens it after the go byte, --on-go), and a create that fails
# once the chain is held ends it the same way. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws" "$B/seen"
	# the steps: corral itself copied (it finds its steps beside its real
	# path), the others linked, probe a stand-in
	for mode in pass fail create-pass create-fail; do
		D=$B/bin-$mode
		mkdir -p "$D"
		cp "$CORRAL_BIN/corral" "$D/corral"
		case $mode in create-*) step=home-stage ;; *) step=probe ;; esac
		for f in "$CORRAL_BIN"/*; do
			n=${f##*/}
			[ "$n" = corral ] || [ "$n" = $step ] || ln -s "$f" "$D/$n"
		done
		case $mode in
		pass) answer='echo "platform=linux tier=full"; exit 0' ;;
		fail) answer='echo "probe: fatal: stand-in: unproven" >&2; exit 1' ;;
		create-pass) answer="exec '$CORRAL_BIN/home-stage' \"\$@\"" ;;
		create-fail) answer='echo "home-stage: fatal: stand-in: no home" >&2; exit 2' ;;
		esac
		cat > "$D/$step" <<EOF
#!/bin/sh
# home-stage's finish, and create until the chain is started: the real one
[ $step = home-stage ] && [ "\$1" != create ] && exec "$CORRAL_BIN/home-stage" "\$@"
# under corral (\$PPID): is pid \$1 one of its descendants?
under() {
	q=\$1
	while [ "\$q" -gt 1 ] 2>/dev/null; do
		[ "\$q" = "\$PPID" ] && return 0
		q=\$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' /proc/\$q/stat 2>/dev/null) || return 1
	done
	return 1
}
# wait (bounded) for this run's confine held at its gate: read(2) on the
# descriptor its --gate names
i=0
while [ \$i -lt 1200 ]; do
	for p in \$(pgrep -f -- ' --gate [0-9]'); do
		n=\$(tr '\0' '\n' < /proc/\$p/cmdline 2>/dev/null | sed -n '/^--gate\$/{n;p;q;}')
		[ -n "\$n" ] && under "\$p" || continue
		case "\$(cat /proc/\$p/syscall 2>/dev/null)" in
		"0 \$(printf '0x%x' "\$n") "*)
			echo "\$p" > "$B/seen/$mode"
			$answer ;;
		esac
	done
	sleep 0.05
	i=\$((i + 1))
done
echo "probe: fatal: stand-in: no chain held at its gate" >&2
exit 1
EOF
		chmod 755 "$D/$step"
	done
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	ST=$B/home/.local/state/corral
	M=$B/ws/agent-ran

	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$B/bin-fail/corral' run -- sh -c 'touch $M'"
	is "$rc" 125 "$who: a probe that fails once the chain is held at its gate: 125"
	like "$err" "corral: fatal: containment is unproven on this machine \\(probe status 1\\): nothing was started" "$who: ... says nothing was started"
	held=$(cat "$B/seen/fail" 2>/dev/null)
	like "$held" "^[0-9]+\$" "$who: ... the chain was set up: confine held the program at its gate while probe ran"
	status_ok "$([ ! -e "$M" ]; echo $?)" "$who: ... and the program never ran (no marker)"
	status_ok "$(! kill -0 "${held:-0}" 2>/dev/null; echo $?)" "$who: ... the held confine is gone"
	is "$(pgrep -f -- "touch $M" | wc -l)" 0 "$who: ... no process of the attempt left"
	a=$(ls "$ST/attempts" 2>/dev/null | head -1)
	like "$($AS $E "$CORRAL_BIN/session-store" --store "$ST" show "$a" 2>&1)" "status 125" "$who: ... the attempt closed as refused"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: ... its directory gone"
	unlike "$(cat "$ST/audit/$a"* 2>/dev/null)" '"(env-filter|confine|exec|wait)"' "$who: ... its audit log names no step of the agent"

	# control: the same stand-in, passing
	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$B/bin-pass/corral' run -- sh -c 'touch $M'"
	is "$rc:$(ls "$M" 2>&1)" "0:$M" "$who: control: the stand-in passes once the chain is held: the program runs"
	like "$(cat "$B/seen/pass" 2>/dev/null)" "^[0-9]+\$" "$who: ... after being held at the gate"

	# home-stage create, once the chain is held: failing, then passing
	rm -rf "$ST" "$M"
	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$B/bin-create-fail/corral' run -- sh -c 'touch $M'"
	is "$rc" 125 "$who: a home-stage create that fails once the chain is held at its gate: 125"
	like "$err" "corral: fatal: home-stage create failed \\(status 2\\): nothing was started" "$who: ... says nothing was started"
	held=$(cat "$B/seen/create-fail" 2>/dev/null)
	like "$held" "^[0-9]+\$" "$who: ... the chain was started before create ended: confine held the program at its gate"
	status_ok "$([ ! -e "$M" ]; echo $?)" "$who: ... and the program never ran (no marker)"
	status_ok "$(! kill -0 "${held:-0}" 2>/dev/null; echo $?)" "$who: ... the held confine is gone"
	is "$(pgrep -f -- "touch $M" | wc -l)" 0 "$who: ... no process of the attempt left"
	is "$(ls "$ST" 2>/dev/null | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: ... no attempt directory"
	unlike "$(cat "$ST/audit/"* 2>/dev/null)" '"(env-filter|confine|exec|wait)"' "$who: ... its audit log names no step of the agent"

	# control: create passing once the chain is held
	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$B/bin-create-pass/corral' run -- sh -c 'touch $M'"
	is "$rc:$(ls "$M" 2>&1)" "0:$M" "$who: control: create passes once the chain is held: the program runs"
	like "$(cat "$B/seen/create-pass" 2>/dev/null)" "^[0-9]+\$" "$who: ... after being held at the gate"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: ... its directory gone"
	rm -f "$M"
	# the chain started from the plan works in the workspace, wherever
	# corral was started
	run sh -c "cd '$B' && $AS $E timeout 120 '$CORRAL_BIN/corral' run --workspace '$B/ws' -- sh -c 'pwd > $M'"
	is "$rc:$(cat "$M" 2>&1)" "0:$B/ws" "$who: --workspace from elsewhere: the program runs in the workspace"
	rm -f "$M"
done
done_testing
