#!/bin/sh
# env-filter: values given by -f and -F never appear in a running chain's
# /proc/PID/cmdline, while the program really has them in its environment.
. "$CORRAL_TOP/tests/lib/tap.sh"
EF=$CORRAL_BIN/env-filter
D=$T/helpers/dumpenv
umask 077

a=file-value-4f1c9e2a b=fd-value-7d3a5b8e
printf 'A_VAL=%s\n' "$a" >"$TMP/a.env"
printf 'B_VAL=%s\n' "$b" >"$TMP/b.env"

# chain: env-filter -f -> env-filter -k -F -> dumpenv -w (waits on stdin).
# The command is exec'd by the background job itself (no function, no
# subshell keeps the pipe open), so $! is the chain's pid all along.
chain() {
	if [ "$1" = as_nobody ]; then
		shift
		set -- setpriv --reuid=nobody --regid=nogroup --clear-groups \
			--inh-caps=-all --bounding-set=-all -- "$@"
	fi
	mkfifo "$TMP/in" "$TMP/out"
	"$@" <"$TMP/in" >"$TMP/out" &
	pid=$!
	exec 7>"$TMP/in"
	cat "$TMP/out" >"$TMP/dump"	# EOF once dumpenv has printed and closed stdout
	tr '\0' '\n' <"/proc/$pid/cmdline" >"$TMP/cmdline"
	tr '\0' '\n' <"/proc/$pid/environ" >"$TMP/environ"
	ls "/proc/$pid/fd" >"$TMP/fds"
	exec 7>&-
	wait "$pid"
	rc=$?
	rm -f "$TMP/in" "$TMP/out"
}

chain "$EF" -f "$TMP/a.env" -- "$EF" -k A_VAL -F 3 -- "$D" -w 3<"$TMP/b.env"
is "$rc" 0 "the chain ran to its end"
is "$(cat "$TMP/cmdline")" "$D
-w" "cmdline is the program's own arguments"
grep -q -e "$a" -e "$b" "$TMP/cmdline"
is $? 1 "cmdline holds neither the -f nor the -F value"
is "$(cat "$TMP/environ")" "A_VAL=$a
B_VAL=$b" "the running program's environ holds both (the check above can fail)"
is "$(cat "$TMP/dump")" "A_VAL=$a
B_VAL=$b" "and it printed them"
grep -qx 3 "$TMP/fds"
is $? 1 "the -F descriptor is not inherited"

# the same as nobody: a chain an ordinary user runs
if is_root; then
	chmod 0711 "$TMP"
	chown nobody "$TMP/a.env" "$TMP/b.env"
	chain as_nobody "$EF" -f "$TMP/a.env" -- "$EF" -k A_VAL -F 3 -- "$D" -w 3<"$TMP/b.env"
	is "$rc" 0 "as nobody: the chain ran"
	grep -q -e "$a" -e "$b" "$TMP/cmdline"
	is $? 1 "as nobody: cmdline holds neither value"
	is "$(cat "$TMP/environ")" "A_VAL=$a
B_VAL=$b" "as nobody: environ holds both"
fi

done_testing
