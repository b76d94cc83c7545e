#!/bin/sh
# The release build: every program statically linked; env-filter under 64 KiB.
. "$CORRAL_TOP/tests/lib/tap.sh"
if [ "${CORRAL_MODE:-musl}" = san ]; then
	echo "1..0 # SKIP sanitizer build is dynamic"
	exit 0
fi

n=0
for b in "$CORRAL_BIN"/*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	n=$((n + 1))
	like "$(file -b "$b")" "statically linked|static-pie linked" "$(basename "$b") is statically linked"
done
status_ok $((n == 0)) "found $n programs"
size=$(stat -c %s "$CORRAL_BIN/env-filter")
status_ok $((size >= 65536)) "env-filter is under 64 KiB ($size bytes)"

done_testing
