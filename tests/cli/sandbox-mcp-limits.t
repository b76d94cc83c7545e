#!/bin/sh
# sandbox-mcp bounds every command's tree in processes and memory by
# default, through corral's own limits code (keeper and lib/reslimit.c: the
# tree's cgroup controllers where they can be made, else RLIMIT_NPROC and
# RLIMIT_AS): 40 background processes under max_processes 16 are refused
# (control: under 1024 they all run); 300 MB under max_memory_mb 128 is
# killed (control: under 1024 it is allocated); a fork bomb under a tight
# bound ends with the command and the load average is printed before and
# after; session idle: the timer counts from the end of the last call, and
# never reaps a session a call is using (control: an idle one is reaped).
# SDK client; root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"

for who in root nobody; do
D=$TMP/$who
mkdir -p "$D/home"
SDK_AS=
if [ "$who" = nobody ]; then
	chown -R nobody:nogroup "$D"
	SDK_AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
fi
cat > "$D/s" <<'JSON'
[{"call": "get_config"},
 {"call": "create_session"},
 {"call": "session_bash", "args": {"command": "python3 -c 'import os, time\nn = 0\nfor i in range(40):\n    try:\n        p = os.fork()\n    except OSError as e:\n        print(e)\n        break\n    if p == 0:\n        time.sleep(2)\n        os._exit(0)\n    n += 1\nprint(\"started=%d\" % n)\nfor i in range(n):\n    os.wait()'"}},
 {"call": "session_bash", "args": {"command": "python3 -c 'x = bytearray(300 << 20); print(len(x) >> 20)'; echo rc=$?"}},
 {"call": "session_bash", "args": {"command": "f() { f | f & }; f; sleep 1; echo bombed"}}]
JSON
run_with() {	# run_with CONFIG: the script under that configuration
	echo "$1" > "$D/cfg.json"
	sdk_run "$D/s" --store "$D/store" --config "$D/cfg.json"
}
# the san build under RLIMIT_AS: no memory bound, its checks skipped
# (tap.sh says why)
san=
san_rlimit_as $SDK_AS && san="san build, the memory bound is RLIMIT_AS here: ASan's shadow exceeds any bound"
mem() { if [ -n "$san" ]; then echo 0; else echo "$1"; fi; }
run_with "{\"max_processes\": 1024, \"max_memory_mb\": $(mem 1024), \"bash_timeout_ms\": 120000}"
is "$(rj get_config 1 '.config.max_processes'):$(rj get_config 1 '.config.max_memory_mb')" "1024:$(mem 1024)" "$who: max_processes and max_memory_mb are configuration keys"
is "$(rj session_bash 1 .stdout)" "started=40" "$who: control: under max_processes 1024, 40 background processes run"
if [ -n "$san" ]; then skip "$who: control: under max_memory_mb 1024, 300 MB is allocated: $san"
else
is "$(rj session_bash 2 .stdout)" "300
rc=0" "$who: control: under max_memory_mb 1024, 300 MB is allocated"
[ "$(rj session_bash 2 .exit_code)" = 0 ] || diag "$(r session_bash 2)"
fi
echo '{}' > "$D/cfg.json"
sdk_run "$D/s" --store "$D/store" --config "$D/cfg.json"
like "$(rj get_config 1 '.config.max_processes'):$(rj get_config 1 '.config.max_memory_mb')" '^[1-9][0-9]*:[1-9][0-9]*$' "$who: bounded by default (no key set)"
l0=$(cut -d' ' -f1 /proc/loadavg)
run_with "{\"max_processes\": 16, \"max_memory_mb\": $(mem 128), \"bash_timeout_ms\": 8000}"
l1=$(cut -d' ' -f1 /proc/loadavg)
n=$(rj session_bash 1 .stdout | sed 's/started=//')
like "$n:$(rj session_bash 1 .stdout)" '^([0-9]|1[0-6]):.*Resource temporarily unavailable' "$who: under max_processes 16 the forks past the bound are refused (started $n of 40)"
if [ -n "$san" ]; then skip "$who: under max_memory_mb 128, 300 MB is not allocated: $san"
else unlike "$(rj session_bash 2 .stdout)" '^300' "$who: under max_memory_mb 128, 300 MB is not allocated"; fi
like "$(rj session_bash 3 .exit_code)" '^[0-9]+$' "$who: the fork bomb's command ended (exit $(rj session_bash 3 .exit_code), timed out $(rj session_bash 3 .timed_out), tree ended by $(rj session_bash 3 .tree_ended_by))"
diag "$who: fork bomb under max_processes 16: load average $l0 before, $l1 after"
awk -v a="$l0" -v b="$l1" 'BEGIN { exit !(b < a + 16) }'
status_ok $? "$who: the load average rose by less than the bound ($l0 -> $l1)"
is "$(ps -eo args | grep -c '[f]() { f | f & }')" 0 "$who: nothing of the bomb is left"

# idle: a 2 s timeout, a call of 4 s, the next call finds its session
cat > "$D/i" <<'JSON'
[{"call": "create_session"},
 {"call": "session_bash", "args": {"command": "sleep 4; echo slept"}},
 {"call": "session_bash", "args": {"command": "echo still-here"}},
 {"sleep": 3500},
 {"call": "session_bash", "args": {"command": "echo gone?"}}]
JSON
echo "{\"max_memory_mb\": $(mem 4096), \"session_idle_timeout_secs\": 2, \"bash_timeout_ms\": 20000}" > "$D/cfg.json"
sdk_run "$D/i" --store "$D/istore" --config "$D/cfg.json"
like "$(r session_bash 1)" '"isError":false.*slept' "$who: idle: a call longer than the idle timeout"
like "$(r session_bash 2)" '"isError":false.*still-here' "$who: idle: the next call finds its session (the timer counts from the end of the last call)"
like "$(r session_bash 3)" '"isError":true.*(no session|no current session)' "$who: idle: control: a session idle past the timeout is reaped"
done
done_testing
