#!/bin/sh
# The pty relay filters what the agent prints (keeper/escfilter.c):
# OSC 52 (the clipboard), DECRQSS, tmux passthrough and title reports never
# reach the user's terminal; colours, cursor movement and the title do;
# corral run --allow-osc 52 lets the clipboard through. On a real pty (a
# python one), as root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
cat >"$TMP/drive.py" <<'PY'
import os, pty, select, sys
corral, home, ws = sys.argv[1:4]
extra = sys.argv[4:]
os.chdir(ws)
out = "\033[1;31mRED\033[0m\033[5;1H\033]2;title\a" \
      "\033]52;c;Y3VybCBldmlsfHNo\a\033P$qm\033\\\033Ptmux;\033\033]52;c;eA==\a\033\\\033[21tEND"
pid, fd = pty.fork()
if pid == 0:
    os.execve(corral, [corral, "run"] + extra + ["--", "/usr/bin/printf", "%s", out],
              {"HOME": home, "PATH": "/usr/bin:/bin", "TERM": "xterm"})
got = b""
while True:
    r, _, _ = select.select([fd], [], [], 60)
    if not r:
        break
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    got += d
os.waitpid(pid, 0)
print(repr(got.decode(errors="replace")))
PY
chmod a+r "$TMP/drive.py"
for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	H=$TMP/$who/home W=$TMP/$who/ws
	mkdir -p "$H" "$W"
	chmod 0700 "$H"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$TMP/$who"
	run timeout 120 $AS /usr/bin/python3 "$TMP/drive.py" "$CORRAL_BIN/corral" "$H" "$W"
	is "$out" "'\\x1b[1;31mRED\\x1b[0m\\x1b[5;1H\\x1b]2;title\\x07END'" \
	    "$who: the user's terminal gets the colours, the cursor movement and the title, not OSC 52, DECRQSS, tmux passthrough or the title report"
	run timeout 120 $AS /usr/bin/python3 "$TMP/drive.py" "$CORRAL_BIN/corral" "$H" "$W" --allow-osc 52
	like "$out" "x1b\\]52;c;Y3VybCBldmlsfHNo.*END" "$who: --allow-osc 52: the clipboard write passes"
	unlike "$out" "qm|tmux" "$who: --allow-osc 52: DECRQSS and tmux passthrough still do not"
done
run "$CORRAL_BIN/corral" run --allow-osc x -- true
is "$rc:$err" "125:corral: usage: --allow-osc x: want an OSC number from 0 to 65535, at most 16 of them" "a bad --allow-osc: 125, says what it wants"
done_testing
