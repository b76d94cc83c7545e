#!/bin/sh
# One usage-error shape for every program and subcommand:
#   PROG: usage: unknown option --x | option -k needs an argument
#   PROG: hint: PROG [COMMAND] --help
# with the program's usage status (chain-loaders 125, the others 2), and
# --help fails when standard output cannot be written.
. "$CORRAL_TOP/tests/lib/tap.sh"
B=$CORRAL_BIN

# shape PROG-NAME STATUS HINT-CMD CMD...: CMD --bogus gives the one shape
shape() {
	name=$1 want=$2 hint=$3; shift 3
	run "$@" --bogus
	is "$rc:$err" "$want:$name: usage: unknown option --bogus
$name: hint: $hint --help" "$hint --bogus: one usage line, a hint, status $want"
	run "$@" -Q
	is "$rc:$err" "$want:$name: usage: unknown option -Q
$name: hint: $hint --help" "$hint -Q: the short option named"
}
# control: a known option is not a usage error
run "$B/confine" --version
is "$rc" 0 "control: confine --version is no usage error"

shape env-filter 125 env-filter "$B/env-filter"
shape confine 125 confine "$B/confine"
shape probe 2 probe "$B/probe"
shape home-stage 2 home-stage "$B/home-stage" create
shape home-stage 2 home-stage "$B/home-stage" finish
shape git-stage 2 git-stage "$B/git-stage" create
shape git-stage 2 git-stage "$B/git-stage" finish
shape session-store 2 session-store "$B/session-store"
for sub in begin end list show put release renew reap; do
	shape session-store 2 session-store "$B/session-store" --store "$TMP/st" $sub
done
shape mcp-proxy 2 mcp-proxy "$B/mcp-proxy"
shape sandbox-mcp 2 sandbox-mcp "$B/sandbox-mcp"
shape egress-proxy 2 egress-proxy "$B/egress-proxy"
shape runfiles 2 runfiles "$B/runfiles" snapshot
shape runfiles 2 runfiles "$B/runfiles" report
shape corral 2 corral "$B/corral"
shape corral 125 "corral run" "$B/corral" run
shape corral 2 "corral explain" "$B/corral" explain
shape corral 2 "corral doctor" "$B/corral" doctor
shape corral 2 "corral policy" "$B/corral" policy
shape corral 2 "corral why" "$B/corral" why

# a missing argument, short and long
run "$B/confine" -r
is "$rc:$err" "125:confine: usage: option -r needs an argument
confine: hint: confine --help" "confine -r: needs an argument"
run "$B/session-store" --store
is "$rc:$err" "2:session-store: usage: option --store needs an argument
session-store: hint: session-store --help" "session-store --store: needs an argument"
run "$B/corral" run -p
is "$rc:$err" "125:corral: usage: option -p needs an argument
corral: hint: corral run --help" "corral run -p: needs an argument"
run "$B/home-stage" create --state
is "$rc:$err" "2:home-stage: usage: option --state needs an argument
home-stage: hint: home-stage --help" "home-stage create --state: needs an argument"
run "$B/session-store" --store "$TMP/st" reap --older-than
is "$rc:$err" "2:session-store: usage: option --older-than needs an argument
session-store: hint: session-store --help" "session-store reap --older-than: needs an argument"

# --help to a full disk fails, everywhere; to a pipe it works (control)
for p in env-filter confine probe home-stage git-stage session-store mcp-proxy sandbox-mcp egress-proxy runfiles corral; do
	case $p in env-filter|confine) want=125 ;; *) want=2 ;; esac
	"$B/$p" --help > /dev/full 2>"$TMP/e"
	is "$?" "$want" "$p --help > /dev/full: status $want"
	like "$(cat "$TMP/e")" "^$p: fatal: unable to write to standard output" "$p --help > /dev/full: said so"
	"$B/$p" --help > "$TMP/o" 2>&1
	is "$?" 0 "control: $p --help to a file: 0"
done
# the agent-facing programs (README's checklist) end --help with an exit
# table: "Exit status:" and one "  N  meaning" line a status, at least 0 and 2
for p in mcp-proxy egress-proxy sandbox-mcp git-stage runfiles; do
	t=$("$B/$p" --help | sed -n '/^Exit status:$/,$p' | grep -E '^  [0-9]+  ' | awk '{print $1}' | tr '\n' ' ')
	want="0 2 "
	[ $p = sandbox-mcp ] && want="0 1 2 "	# 1: a refusal of its config verbs
	[ $p = git-stage ] && want="0 1 2 "	# 1: refused, or the import failed
	[ $p = runfiles ] && want="0 1 2 "	# 1: the report names files
	is "$t" "$want" "$p --help: an exit table ($want)"
done
t=$("$B/probe" --help | sed -n '/^Exit status:$/,$p' | grep -cE '^  [0-9]+  ')
is "$t" 0 "control: a program without one (probe) shows none"
for sub in run explain doctor; do
	want=2; [ $sub = run ] && want=125
	"$B/corral" $sub --help > /dev/full 2>/dev/null
	is "$?" "$want" "corral $sub --help > /dev/full: status $want"
done
done_testing
