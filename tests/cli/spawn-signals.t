#!/bin/sh
# A program that starts children through lib/procspawn (spawn_clone)
# installs its signal handlers only through spawn_sigaction: the child
# resets just the signals noted there (spawn_child_defaults), so a handler
# put in with sigaction(2) or signal(3) itself would stay in the child's
# memory until its exec. Checked on the objects linked into each such
# program: no function of its own or of lib linked into it calls sigaction
# or signal but lib/procspawn.c's and those listed below, which only
# ignore. Control: confine (which catches signals
# with sigaction, and starts nothing through procspawn) is named when
# checked the same way. (tests/unit/lib/procspawn: the reset itself.)
. "$CORRAL_TOP/tests/lib/tap.sh"
# the release build's objects (gcc): clang's san build inlines a child's
# reset to SIG_DFL into other functions, which this check cannot tell
# from a handler put in; the same sources are checked here in musl
if [ "${CORRAL_MODE:-musl}" = san ]; then
	echo "1..0 # SKIP sanitizer build: clang inlines differently"
	exit 0
fi
O=$(cd "$T/.." && pwd)

# objects that may call signal(3), with SIG_IGN or SIG_DFL only
allowed="git-stage/hold.o git-stage/main.o"
# functions that may catch: sb_parent_run (confine's broker parent, which
# git-stage's boundary uses too) never returns: it waits for its child and
# ends as it did, and nothing starts through procspawn after it
allowed_fn="lib/sandbox_parent.o:sb_parent_run"

# findings for program $1 (its objects in $2 and lib): each function of
# those that installs a disposition itself and is linked into the program
# (-ffunction-sections: a function's calls are in its own section's
# relocations; in a plain .text section, any of the object's functions)
check() {
	nm "$1" 2>/dev/null | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u > "$TMP/bin.syms"
	for o in "$O"/lib/*.o "$O/$2"/*.o; do
		rel=${o#"$O"/}
		[ "$rel" = lib/procspawn.o ] && continue
		case " $allowed " in *" $rel "*) continue ;; esac
		objdump -r "$o" 2>/dev/null | awk '
			/^RELOCATION RECORDS FOR / { sec = $4; sub(/^\[/, "", sec); sub(/\]:$/, "", sec); next }
			$3 ~ /^(sigaction|signal|bsd_signal|sigset|__sigaction|__libc_sigaction)([-+]0x[0-9a-f]+)?$/ { print sec }' |
		    sort -u | while read -r sec; do
			case $sec in
			.text.*) echo "${sec#.text.}" ;;
			*) nm "$o" | awk '$2 == "T" { print $3 }' ;;
			esac
		done | sort -u | comm -12 - "$TMP/bin.syms" | sed "s|^|$rel:|"
	done
}

spawners=
for b in "$CORRAL_BIN"/*; do
	nm "$b" 2>/dev/null | grep -q ' T spawn_child_defaults$' && spawners="$spawners ${b##*/}"
done
like "$spawners" " corral( |$)" "corral starts children through procspawn (and is checked)"
for p in $spawners; do
	d=$p; [ "$p" = corral ] && d=supervisor
	is "$(check "$CORRAL_BIN/$p" "$d" | grep -vxF "$allowed_fn" | tr '\n' ' ')" "" "$p: every handler through spawn_sigaction"
done

# the allowed ones only ignore (or restore) signals
for a in $allowed; do
	src=$CORRAL_TOP/${a%.o}.c
	n=$(grep -cE '(^|[^_a-z])(sigaction|signal) *\(' "$src")
	k=$(grep -cE '(^|[^_a-z])signal *\([^,]*, *SIG_(IGN|DFL)\)' "$src")
	is "$n" "$k" "$a: signal() with SIG_IGN or SIG_DFL only ($k calls)"
done

is "$(grep -A1 "^void sb_parent_run(" "$CORRAL_TOP/lib/sandbox_int.h" | grep -c "noreturn")" 1 \
	"sb_parent_run is still declared noreturn (the exception holds)"
# control: the same check on confine names its catching object
like "$(check "$CORRAL_BIN/confine" confine | tr '\n' ' ')" "lib/sandbox_parent.o:sb_parent_run" \
	"control: confine's own sigaction calls are named"
done_testing
