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
# once the chain is held ends it the same way. So does git-stage create in
# a git workspace (the checkout opened and entered after the go byte, its
# slot foreseen); a checkout other than the one foreseen (another run took
# the slot) ends the held chain unrun and starts one for it. Once create is
# in, the held chain opens and enters what it names before the proof is
# ('r' on its gate). As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home" "$B/ws" "$B/seen"
	# the steps: corral itself copied (it finds its steps beside its real
	# path), the others linked, probe a stand-in
	for mode in pass fail ready create-pass create-fail git-pass git-fail git-slot; do
		D=$B/bin-$mode
		mkdir -p "$D"
		cp "$CORRAL_BIN/corral" "$D/corral"
		case $mode in create-*) step=home-stage ;; git-*) step=git-stage ;; *) step=probe ;; esac
		for f in "$CORRAL_BIN"/*; do
			n=${f##*/}
			[ "$n" = corral ] || [ "$n" = $step ] || ln -s "$f" "$D/$n"
		done
		# where the held confine must be before the stand-in answers
		# (its working directory): anywhere, or (ready) in the checkout
		in=
		case $mode in
		pass) answer='echo "platform=linux tier=full"; exit 0' ;;
		ready) answer='echo "platform=linux tier=full"; exit 0'; in=$B/home/.local/state/corral/git/co/ ;;
		fail) answer='echo "probe: fatal: stand-in: unproven" >&2; exit 1' ;;
		create-pass) answer="exec '$CORRAL_BIN/home-stage' \"\$@\"" ;;
		create-fail) answer='echo "home-stage: fatal: stand-in: no home" >&2; exit 2' ;;
		git-pass) answer="exec '$CORRAL_BIN/git-stage' \"\$@\"" ;;
		git-fail) answer='echo "corral: fatal: git: stand-in: no checkout" >&2; exit 1' ;;
		# another run takes the slot corral foresaw (the first, free
		# when corral looked): the real create makes the next one
		git-slot) answer="exec 9>>\"\$(ls -d '$B/home/.local/state/corral/git/co/'*.0.lock)\" && flock -n 9 && exec '$CORRAL_BIN/git-stage' \"\$@\"; exit 3" ;;
		esac
		cat > "$D/$step" <<EOF
#!/bin/sh
# home-stage's finish, and create until the chain is started: the real one
[ $step = home-stage ] && [ "\$1" != create ] && exec "$CORRAL_BIN/home-stage" "\$@"
[ $step = git-stage ] && [ "\$1" != create ] && exec "$CORRAL_BIN/git-stage" "\$@"
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
			case "\$(readlink "/proc/\$p/cwd" 2>/dev/null)" in "$in"*) ;; *) continue ;; esac
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
	# a git workspace (its checkout made by git-stage create, after the
	# chain started: confine opens and enters it after the go byte)
	G=$B/gws
	mkdir -p "$G/sub"
	(cd "$G" && echo a > a && echo b > sub/b && git init -q && git add -A &&
		git -c user.name=t -c user.email=t@x commit -qm init)
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

	# git-stage create, once the chain is held at its gate: failing, then
	# passing, then making another checkout than the chain was started with
	rm -rf "$ST"
	P="echo agent-ran-$who; pwd; : $B"
	run sh -c "cd '$G' && $AS $E timeout 120 '$B/bin-git-fail/corral' run -- sh -c '$P'"
	is "$rc" 125 "$who: a git-stage create that fails once the chain is held at its gate: 125"
	like "$err" "corral: fatal: git: stand-in: no checkout" "$who: ... says why"
	held=$(cat "$B/seen/git-fail" 2>/dev/null)
	like "$held" "^[0-9]+\$" "$who: ... the chain was started before create ended: confine held the program at its gate"
	unlike "$out" "agent-ran" "$who: ... and the program never ran"
	status_ok "$(! kill -0 "${held:-0}" 2>/dev/null; echo $?)" "$who: ... the held confine is gone"
	is "$(pgrep -f -- "agent-ran-$who; pwd; : $B" | wc -l)" 0 "$who: ... no process of the attempt left"
	a=$(ls "$ST/attempts" 2>/dev/null | head -1)
	like "$($AS $E "$CORRAL_BIN/session-store" --store "$ST" show "$a" 2>&1)" "status 125" "$who: ... the attempt closed as refused"
	is "$(ls "$ST" | grep -c '^a[0-9a-f]\{10\}$')" 0 "$who: ... its directory gone"
	unlike "$(cat "$ST/audit/"* 2>/dev/null)" '"(env-filter|confine|exec|wait)"' "$who: ... its audit log names no step of the agent"

	# control: create passing once the chain is held, corral started in a
	# subdirectory: the program runs there in the checkout
	run sh -c "cd '$G/sub' && $AS $E timeout 120 '$B/bin-git-pass/corral' run -- sh -c '$P'"
	is "$rc:$(printf '%s\n' "$out" | head -1)" "0:agent-ran-$who" "$who: control: git-stage create passes once the chain is held: the program runs"
	like "$(printf '%s\n' "$out" | tail -1)" "^$ST/git/co/[0-9a-f]{16}\.0/gws/sub\$" "$who: ... in the checkout's subdirectory where corral was started"
	like "$(cat "$B/seen/git-pass" 2>/dev/null)" "^[0-9]+\$" "$who: ... after being held at the gate"
	# once create is in, the chain's paths exist: corral says so on the
	# gate ('r') while the proof runs, and confine opens its attempt's
	# directories and enters the checkout then, the program still held
	# (the go byte then finds only its exec to do). A stand-in probe that
	# answers only once the held confine is in the checkout: it passes,
	# the program runs there (with the build before, it never answers)
	run sh -c "cd '$G/sub' && $AS $E timeout 120 '$B/bin-ready/corral' run -- sh -c '$P'"
	is "$rc:$(printf '%s\n' "$out" | head -1)" "0:agent-ran-$who" "$who: the held chain enters its checkout before the proof is in ('r'): the program runs"
	like "$(cat "$B/seen/ready" 2>/dev/null)" "^[0-9]+\$" "$who: ... the stand-in saw confine held at its gate in the checkout"
	like "$(printf '%s\n' "$out" | tail -1)" "^$ST/git/co/[0-9a-f]{16}\.0/gws/sub\$" "$who: ... and the program runs there"

	# the slot foreseen taken meanwhile (create makes the next): the chain
	# started with the first is ended unrun, one for this checkout runs
	run sh -c "cd '$G' && $AS $E timeout 120 '$B/bin-git-slot/corral' run -- sh -c '$P'"
	held=$(cat "$B/seen/git-slot" 2>/dev/null)
	is "$rc:$(printf '%s\n' "$out" | grep -c agent-ran)" "0:1" "$who: another checkout than the one foreseen: the program runs once"
	like "$(printf '%s\n' "$out" | tail -1)" "^$ST/git/co/[0-9a-f]{16}\.1/gws\$" "$who: ... in the checkout create made (the next slot)"
	like "$held" "^[0-9]+\$" "$who: ... a chain was held at its gate before create ended"
	status_ok "$(! kill -0 "${held:-0}" 2>/dev/null; echo $?)" "$who: ... that held confine is gone"
done
done_testing
