#!/bin/sh
# mcp-proxy narrows itself after set-up: no_new_privs and seccomp (filter
# mode) on the proxy; the upstream, started by the launcher outside the
# proxy's domain, is not under them. A unix socket is still removed at the
# end (the launcher does it: the proxy no longer may).
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/mcp-proxy.sh"
trap 'exec 3>&-; for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$TMP"' EXIT
field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

mkfifo "$TMP/in"
"$P" -a grandchild -- "$FAKE" "$TMP/rec" < "$TMP/in" > "$TMP/out" 2>"$TMP/err" & PX=$!; pids="$pids $PX"
exec 3>"$TMP/in"
printf '%s\n{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grandchild","arguments":{}}}\n' "$INIT" >&3
waitfor 'grep -q "\"id\":1," "$TMP/out"'
up=$(sed -n 's/.*"text":"\([0-9]*\) [0-9]*".*/\1/p' "$TMP/out")
like "$up" '^[0-9]+$' 'the upstream answered with its pid'
is "$(field "$PX" NoNewPrivs)" 1 'the proxy: no_new_privs'
is "$(field "$PX" Seccomp)" 2 'the proxy: a seccomp filter'
is "$(field "$PX" CapEff)" 0000000000000000 'the proxy: no capabilities'
is "$(field "$up" NoNewPrivs)" 0 'control: the upstream is not under the proxy narrowing'
is "$(field "$up" Seccomp)" 0 'control: nor its filter'
exec 3>&-
wait $PX
is "$?" 0 'the proxy exits 0 at the end of its input'

# a unix socket is removed at the end, though the proxy may no longer remove files
"$P" --listen-unix "$TMP/sock" -a echo -- "$FAKE" "$TMP/rec2" 2>"$TMP/err2" & PX=$!; pids="$pids $PX"
waitfor '[ -S "$TMP/sock" ]'
status_ok "$([ -S "$TMP/sock" ]; echo $?)" 'the unix socket is there while the proxy runs'
# the socket exists before the proxy narrows itself: wait (bounded) for that
waitfor '[ "$(field "$PX" NoNewPrivs)" = 1 ]'
is "$(field "$PX" NoNewPrivs)" 1 '--listen-unix: no_new_privs too'
kill -TERM $PX; wait $PX
is "$?" 0 'SIGTERM: exit 0'
waitfor '! [ -e "$TMP/sock" ]'
status_ok "$([ ! -e "$TMP/sock" ]; echo $?)" 'the socket is removed'
unlike "$(cat "$TMP/err" "$TMP/err2")" 'narrow' 'no narrowing failure said'
done_testing
