#!/bin/sh
# corral run on a real terminal: the agent's process group holds it, ^C
# reaches the agent's foreground job, ^Z stops the agent and corral as a job.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_TOP/tests/helpers/corral-pty.py
mkdir -p "$TMP/home" "$TMP/ws"
chmod 0700 "$TMP/home"
run timeout 120 python3 "$P" int "$CORRAL_BIN/corral" "$TMP/home" "$TMP/ws"
like "$out" "marker-42" "an interactive shell runs under corral on a pty"
like "$out" "alive-2" "^C interrupts the shell's foreground job, not the shell"
like "$out" "status 5$" "the shell's exit status comes back"
run timeout 120 python3 "$P" stop "$CORRAL_BIN/corral" "$TMP/home" "$TMP/ws"
like "$out" "corral stopped: True" "^Z stops the agent, and corral with it"
like "$out" "resumed-go" "SIGCONT resumes the agent, which reads the terminal again"
like "$out" "status 4$" "its status comes back"
done_testing
