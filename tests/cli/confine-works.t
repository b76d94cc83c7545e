#!/bin/sh
# confine: what keeps working under a realistic grant set, as root and as
# nobody: sh, git, python3, node, cc, make, /proc/self from a grandchild,
# an interactive shell on a pty.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
PTY=$CORRAL_TOP/tests/helpers/confine-pty.py

suite() {	# suite WHO AS
	who=$1 AS=$2
	W=$TMP/$who/ws
	mkdir -p "$W/home" "$W/tmp"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$TMP/$who"
	c() {
		$AS env -i PATH=/usr/bin:/bin HOME="$W/home" TMPDIR="$W/tmp" \
		    GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
		    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		    "$C" -x /usr -r /etc -r /proc --dev -W "$W" -- "$@"
	}
	run c sh -c 'cd "$HOME/.." && echo hi > f && cat f'
	is "$rc:$out" 0:hi "$who: sh reads and writes in the workspace"
	run c sh -c 'cd "$HOME/.." && git init -q repo && cd repo && echo a > a &&
	    git add a && git commit -qm one && git log --format=%s'
	is "$rc:$out" 0:one "$who: git init, add, commit, log"
	run c python3 -c 'import os, subprocess; print(subprocess.run(["echo", "py"], capture_output=True, text=True).stdout.strip(), os.getcwd() != "")'
	is "$rc:$out" "0:py True" "$who: python3 runs and spawns"
	run c node -e 'const cp = require("child_process"); console.log(cp.execFileSync("echo", ["node"]).toString().trim(), require("fs").readFileSync("/etc/hostname").length > 0)'
	is "$rc:$out" "0:node true" "$who: node runs, spawns, reads"
	printf '#include <stdio.h>\nint main(void) { puts("cc"); return 0; }\n' >"$W/m.c"
	printf 'm: m.c\n\tcc -o m m.c\n' >"$W/Makefile"
	[ "$who" = nobody ] && chown nobody:nogroup "$W/m.c" "$W/Makefile"
	run c sh -c 'cd "$HOME/.." && make -s && ./m'
	is "$rc:$out" 0:cc "$who: make and cc build a program that runs"
	run c sh -c 'sh -c "cat /proc/self/status" | grep -c "^Pid:"'
	is "$rc:$out" 0:1 "$who: a grandchild reads its own /proc/self/status"
	run c sh -c 'grep -E "^(CapEff|CapPrm|CapBnd|CapAmb|CapInh|NoNewPrivs)" /proc/self/status | tr -s "\t" " " | tr "\n" " "'
	if [ "$who" = root ]; then
		is "$out" "CapInh: 0000000000000000 CapPrm: 0000000000000000 CapEff: 0000000000000000 CapBnd: 0000000000000000 CapAmb: 0000000000000000 NoNewPrivs: 1 " \
		    "$who: no capabilities left, bounding set included; no_new_privs"
	else
		like "$out" "CapPrm: 0+ CapEff: 0+ CapBnd: 0+ CapAmb: 0+ NoNewPrivs: 1" "$who: no capabilities; no_new_privs"
	fi
	run $AS env PS1='$ ' "$PTY" '$ ' 'echo $((6*7)); stty size >/dev/null && tty' '$ ' exit -- \
	    "$C" -x /usr -r /etc -r /proc --dev -W "$W" -- /bin/sh -i
	like "$out" '42' "$who: an interactive shell on a pty evaluates input"
	like "$out" '/dev/pts/[0-9]+' "$who: ... and its terminal ioctls work"
	is "$rc" 0 "$who: ... and exits 0"
}

suite root ""
suite nobody as_nobody
done_testing
