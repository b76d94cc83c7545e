#!/bin/sh
# corral policy check / default, and what a broken policy does to run and explain.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral

run "$C" policy default
is "$rc" 0 "policy default prints"
printf '%s\n' "$out" > "$TMP/default.json"
run "$C" policy check "$TMP/default.json"
is "$rc:$out:$err" "0:$TMP/default.json: valid:" "the embedded default checks valid"
like "$(cat "$TMP/default.json")" '"minimum_tier": "full"' "the default requires tier full"

cat > "$TMP/good.json" <<'J'
{
  "version": 1,
  "read": ["/usr/share"],
  "network": {"connect": [443]},
  "env": {"keep": ["EDITOR"], "set": {"LANG": "C.UTF-8"}},
  "agent": "claude",
  "mcp": {"fs": {"command": ["node", "server.js"], "tools": ["read_file"]}}
}
J
run "$C" policy check "$TMP/good.json"
is "$rc:$err" "0:" "a full policy checks valid"

bad() {	# bad JSON WANT-STDERR DESC
	printf '%s' "$1" > "$TMP/bad.json"
	run "$C" policy check "$TMP/bad.json"
	is "$rc:$out:$err" "1::corral: fatal: policy $TMP/bad.json:$2" "$3"
}
bad '{"netwrk": "open"}' '1:2: unknown key "netwrk" in the policy' "unknown top-level key, with its position"
bad '{
  "network": {"connect": [443], "bnd": [80]}
}' '2:33: unknown key "bnd" in "network"' "unknown nested key, line and column"
bad '{"read": "/usr"}' '1:10: "read" must be an array of strings, not a string' "wrong type"
bad '{"scope": "yes"}' '1:11: "scope" must be a boolean, not a string' "wrong type: boolean"
bad '{"network": {"connect": [70000]}}' '1:26: "connect": port 70000 is out of range 1-65535' "port out of range"
bad '{"exec": ["usr/bin"]}' '1:11: "exec": path "usr/bin" is not absolute (start it with / or ~/)' "relative path"
bad '{"read": [],
 "read": []}' '2:2: duplicate key "read" in the policy' "duplicate key"
bad '{"read": [' '1:11: not valid JSON' "truncated JSON"
bad '{"minimum_tier": "strong"}' '1:18: "minimum_tier" "strong" is not one of fs, fs+net, full' "unknown tier"

run "$C" policy check "$TMP/absent.json"
is "$rc:$err" "2:corral: fatal: unable to open policy $TMP/absent.json: No such file or directory" "an absent file: status 2"
run "$C" policy check /
is "$rc:$err" "2:corral: fatal: policy / is not a regular file" "a directory: status 2"
head -c 1100000 /dev/zero | tr '\0' ' ' > "$TMP/big.json"
run "$C" policy check "$TMP/big.json"
is "$rc:$err" "2:corral: fatal: policy $TMP/big.json is larger than 1048576 bytes" "an over-size file: status 2"
run "$C" policy
is "$rc" 2 "policy without a subcommand: usage"

# a broken policy: clear error, nothing runs (run: 125; explain: 1)
mkdir "$TMP/ws"
printf '{"network": "closed"}' > "$TMP/broken.json"
run "$C" run -p "$TMP/broken.json" -w "$TMP/ws" -- /bin/sh -c "touch $TMP/ran"
is "$rc" 125 "run with a broken policy: 125"
is "$err" "corral: fatal: policy $TMP/broken.json:1:13: \"network\" must be \"open\", \"none\", \"open-unfiltered\", {\"connect\": [...]} or {\"allow\": [...]}
corral: hint: check it with: corral policy check $TMP/broken.json" "run names the position and hints"
status_ok "$([ ! -e "$TMP/ran" ]; echo $?)" "nothing ran"
run "$C" explain -p "$TMP/broken.json" -w "$TMP/ws" -- /bin/true
is "$rc:$out" "1:" "explain with a broken policy: 1, nothing printed"
run "$C" run -p "$TMP/absent.json" -w "$TMP/ws" -- /bin/sh -c "touch $TMP/ran"
is "$rc" 125 "run with an absent policy: 125"
status_ok "$([ ! -e "$TMP/ran" ]; echo $?)" "nothing ran"
done_testing
