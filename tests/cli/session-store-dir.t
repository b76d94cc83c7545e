#!/bin/sh
# session-store: where the store is and which stores are refused (root and nobody).
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"

run env -i XDG_STATE_HOME="$TMP/xdg" HOME="$TMP/home" "$SS" begin --agent claude
status_ok $rc "default store from XDG_STATE_HOME"
[ -f "$TMP/xdg/corral/attempts/$out" ]; status_ok $? "record under \$XDG_STATE_HOME/corral"
run env -i HOME="$TMP/home" "$SS" begin --agent claude
status_ok $rc "default store from HOME"
[ -f "$TMP/home/.local/state/corral/attempts/$out" ]; status_ok $? "record under ~/.local/state/corral"
is "$(stat -c %a "$TMP/home/.local/state/corral")" 700 "created 0700"
run env -i XDG_STATE_HOME=relative HOME="$TMP/home2" "$SS" list
status_ok $rc "relative XDG_STATE_HOME ignored"
[ -d "$TMP/home2/.local/state/corral" ]; status_ok $? "falls back to HOME"
run env -i "$SS" list
is $rc 2 "no HOME, no XDG_STATE_HOME: exit 2"
like "$err" "^session-store: fatal: no store" "no store: message"

mkdir -m 0777 "$TMP/open"; chmod 0777 "$TMP/open"
run "$SS" --store "$TMP/open" begin --agent claude
is $rc 1 "0777 store refused: exit 1"
like "$err" "^session-store: fatal: store $TMP/open: group- or world-writable \\(mode 0777\\)" "0777: message"
like "$err" "session-store: hint: " "0777: hint"
[ -z "$(ls -A "$TMP/open")" ]; status_ok $? "nothing written into the 0777 store"
mkdir -m 0770 "$TMP/group"; chmod 0770 "$TMP/group"
run "$SS" --store "$TMP/group" list
is $rc 1 "group-writable store refused"

mkdir -m 0700 "$TMP/real"
ln -s "$TMP/real" "$TMP/link"
run "$SS" --store "$TMP/link" begin --agent claude
is $rc 2 "store path that is a symlink refused"
[ -z "$(ls -A "$TMP/real")" ]; status_ok $? "nothing written through the symlink"
run "$SS" --store relative list
is $rc 2 "relative store refused"

# foreign-owned, as root: a store owned by nobody
nobody_dir "$TMP/nbstore"
run "$SS" --store "$TMP/nbstore" begin --agent claude
is $rc 1 "root: store owned by nobody refused"
like "$err" "owned by uid 65534, not by the caller \\(uid 0\\)" "root: foreign owner named"
# a subdirectory made writable by others is refused too
mkdir -m 0700 "$TMP/s2" && "$SS" --store "$TMP/s2" list >/dev/null && chmod 0777 "$TMP/s2/attempts"
run "$SS" --store "$TMP/s2" list
is $rc 1 "world-writable attempts/ refused"
like "$err" "attempts: group- or world-writable" "subdirectory named"

# as nobody: a root-owned store is refused, its own store works
chmod 0755 "$TMP/real"
run as_nobody "$SS" --store "$TMP/real" list
is $rc 1 "nobody: root-owned store refused"
like "$err" "owned by uid 0, not by the caller \\(uid 65534\\)" "nobody: foreign owner named"
nobody_dir "$TMP/nb"
run as_nobody "$SS" --store "$TMP/nb/store" begin --agent codex
status_ok $rc "nobody: own store works"
is "$(stat -c '%U %a' "$TMP/nb/store")" "nobody 700" "nobody: store is nobody's, 0700"
id=$out
run as_nobody "$SS" --store "$TMP/nb/store" end "$id" --status 0
status_ok $rc "nobody: end works"
done_testing
