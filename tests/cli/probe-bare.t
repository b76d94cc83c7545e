#!/bin/sh
# probe's checks fail without the boundary: the unit test tests/unit/probe/bare
# (the same children, minus the sandbox) as nobody; prove runs it as root.
. "$CORRAL_TOP/tests/lib/tap.sh"
mkdir "$TMP/w"
chown nobody "$TMP/w"
as_nobody env TMPDIR="$TMP/w" "$T/unit/probe/bare" >"$TMP/tap" 2>&1
is "$?" 0 "bare, as nobody: exit 0"
is "$(grep -c '^not ok' "$TMP/tap")" 0 "bare, as nobody: nothing failed"
is "$(grep -c 'unproven without the boundary' "$TMP/tap")" 24 "bare, as nobody: all 24 checks fail without the boundary"
is "$(grep -c 'proven through the boundary' "$TMP/tap")" 24 "bare, as nobody: all 24 pass through it"
like "$(cat "$TMP/tap")" "running as uid 65534" "really as nobody"
done_testing
