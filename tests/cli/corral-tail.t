#!/bin/sh
# The tail of corral run: home-stage's finish (create --finish) and the
# runfiles report read the home and the workspace only once nothing of the
# agent can run any more. corral writes both go bytes once keeper has ended
# every process of the attempt (its cgroup killed: root here, cgroup v2; or
# its process group and what detached from it, swept as their subreaper:
# nobody, keeper's fallback without a cgroup) and exited. Stand-ins for the
# two steps (in a copy of the step directory) relay their input to the real
# ones and note, at the moment the go byte comes, whether a process the
# agent left behind still runs: one under setsid, a double-forked one, one
# that ignores TERM, INT and HUP. Control: a stand-in keeper that runs the
# chain and ends nothing after it: both go bytes come while those run, and
# the stand-ins say so. The status, the report and the removed tree are the
# run's either way. As root and as nobody, and again under
# tests/helpers/nonamespace (no namespaces, clone3 refused: keeper's
# chain forked and moved into its cgroup).
. "$CORRAL_TOP/tests/lib/tap.sh"
NS=$T/helpers/nonamespace

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	tag=$$$([ "$who" = root ] && echo 1 || echo 2)	# digits: sleep's time
	mkdir -p "$B/home" "$B/ws" "$B/log"
	# leftovers: only these, by their whole command line
	left() { pgrep -f -- "^sleep 47[0-9][0-9]\\.$tag\$"; }
	for mode in steps ctl; do
		D=$B/bin-$mode
		mkdir -p "$D"
		cp "$CORRAL_BIN/corral" "$D/corral"
		for f in "$CORRAL_BIN"/*; do
			n=${f##*/}
			case $n in corral|home-stage|runfiles) ;; keeper) [ $mode = ctl ] || ln -s "$f" "$D/$n" ;; *) ln -s "$f" "$D/$n" ;; esac
		done
		for step in home-stage runfiles; do
			case $step in home-stage) verb=create ;; runfiles) verb=watch ;; esac
			cat > "$D/$step" <<EOF
#!/bin/sh
# $step $verb with its input relayed: the go byte, when it comes, handed on
# once it is noted whether a leftover of the agent runs
PATH=/usr/bin:/bin
[ "\$1" = $verb ] || exec "$CORRAL_BIN/$step" "\$@"
f=$B/log/$step.fifo.\$\$
mkfifo "\$f" || exit 2
"$CORRAL_BIN/$step" "\$@" < "\$f" &
r=\$!
exec 3> "\$f"
rm -f "\$f"
cat > "$B/log/$step.go.\$\$"
n=\$(pgrep -f -- '^sleep 47[0-9][0-9]\\.$tag\$' | wc -l)
[ -s "$B/log/$step.go.\$\$" ] && echo "\$(head -c 2 "$B/log/$step.go.\$\$") left=\$n" >> "$B/log/$step.$mode"
cat "$B/log/$step.go.\$\$" >&3
rm -f "$B/log/$step.go.\$\$"
exec 3>&-
wait \$r
EOF
			chmod 755 "$D/$step"
		done
	done
	cat > "$B/bin-ctl/keeper" <<'EOF'
#!/bin/sh
# keeper's stand-in: the chain, named on --pid-fd, and nothing ended after it
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" = --pid-fd ] && p=$2
	shift
done
shift
echo $$ >&"${p:?}"
exec "$@"
EOF
	chmod 755 "$B/bin-ctl/keeper"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	ST=$B/home/.local/state/corral
	trees() { ls "$ST" 2>/dev/null | grep -c '^a[0-9a-f]\{10\}$'; }
	# the agent: three leftovers, each up (its file) before it ends
	A="setsid sh -c 'touch \$TMPDIR/up1; exec sleep 4701.$tag' </dev/null >/dev/null 2>&1 &
		(sh -c 'sleep 4702.$tag & touch \$TMPDIR/up2' </dev/null >/dev/null 2>&1 &)
		setsid sh -c \"trap '' TERM INT HUP; touch \$TMPDIR/up3; exec sleep 4703.$tag\" </dev/null >/dev/null 2>&1 &
		i=0; until [ -e \$TMPDIR/up1 ] && [ -e \$TMPDIR/up2 ] && [ -e \$TMPDIR/up3 ] || [ \$i -ge 600 ]; do sleep 0.05; i=\$((i + 1)); done
		echo x > .envrc; exit 3"

	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$B/bin-steps/corral' run -- sh -c \"\$0\"" "$A"
	is "$rc" 3 "$who: a run that leaves three processes behind: the agent's status"
	is "$(cat "$B/log/home-stage.steps" 2>/dev/null)" "g3 left=0" "$who: ... finish's go byte, with the status, once none of them runs"
	is "$(cat "$B/log/runfiles.steps" 2>/dev/null)" "g left=0" "$who: ... the report's too"
	like "$err" "created .envrc: direnv runs it on entering the directory" "$who: ... the report names the .envrc"
	is "$(trees)" 0 "$who: ... the attempt's tree removed"
	is "$(left | wc -l)" 0 "$who: ... nothing of the attempt left"
	rm -f "$B/ws/.envrc"

	# the same where namespaces and clone3 are refused
	rm -f "$B/log/home-stage.steps" "$B/log/runfiles.steps"
	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$NS' '$B/bin-steps/corral' run -- sh -c \"\$0\"" "$A"
	is "$rc" 3 "$who: no namespaces, no clone3: the agent's status"
	is "$(cat "$B/log/home-stage.steps" 2>/dev/null)" "g3 left=0" "$who: ... finish's go byte once none of the three runs"
	is "$(cat "$B/log/runfiles.steps" 2>/dev/null)" "g left=0" "$who: ... the report's too"
	is "$(trees)" 0 "$who: ... the attempt's tree removed"
	is "$(left | wc -l)" 0 "$who: ... nothing of the attempt left"
	rm -f "$B/ws/.envrc"

	# control: a keeper that ends nothing
	run sh -c "cd '$B/ws' && $AS $E timeout 120 '$B/bin-ctl/corral' run -- sh -c \"\$0\"" "$A"
	is "$rc" 3 "$who: control: keeper's stand-in, which ends nothing: the agent's status"
	is "$(cat "$B/log/home-stage.ctl" 2>/dev/null)" "g3 left=3" "$who: ... finish's go byte came while the three ran"
	is "$(cat "$B/log/runfiles.ctl" 2>/dev/null)" "g left=3" "$who: ... and the report's"
	like "$err" "created .envrc" "$who: ... the report still ran"
	for p in $(left); do kill -9 "$p"; done
	rm -f "$B/ws/.envrc"
done
done_testing
