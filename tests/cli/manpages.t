#!/bin/sh
# Every man page is mandoc-lint clean; every program in $CORRAL_BIN has a man
# page and answers --help and --version with exit 0.
. "$CORRAL_TOP/tests/lib/tap.sh"
version=$(sed -n 's/^#define CORRAL_VERSION "\(.*\)"$/\1/p' "$CORRAL_TOP/lib/version.h")

n=0
for m in "$CORRAL_TOP"/*/*.1; do
	[ -e "$m" ] || continue
	n=$((n + 1))
	run mandoc -Tlint -Wwarning "$m"
	is "$out$err" "" "mandoc -Tlint -Wwarning: ${m#"$CORRAL_TOP/"}"
done
status_ok $((n == 0)) "found $n man pages"

p=0
for b in "$CORRAL_BIN"/*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	p=$((p + 1))
	prog=$(basename "$b")
	page=$(ls "$CORRAL_TOP"/*/"$prog.1" 2>/dev/null | head -n1)
	status_ok $(( ${#page} == 0 )) "$prog has a man page (${page#"$CORRAL_TOP/"})"
	run "$b" --version </dev/null
	is "$rc:$out" "0:$prog $version" "$prog --version"
	run "$b" --help </dev/null
	is "$rc" 0 "$prog --help exits 0"
	if [ -n "$page" ]; then
		# each option letter --help shows appears in the man page's SYNOPSIS
		syn=$(mandoc -Tutf8 "$page" | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p')
		miss=
		for o in $(printf '%s\n' "$out" | sed -n '1,/^$/p' | grep -oE '\[-[A-Za-z0-9]\b|\[--[a-z][a-z0-9-]*' | tr -d '['); do
			case $syn in *"$o"*) ;; *) miss="$miss $o" ;; esac
		done
		is "$miss" "" "$prog: the options in --help's usage are in the SYNOPSIS"
	fi
done
status_ok $((p == 0)) "found $p programs in \$CORRAL_BIN"

done_testing
