#!/bin/sh
# corral policy check / default, and what a broken policy does to run and explain.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral

run "$C" policy default
is "$rc" 0 "policy default prints"
printf '%s\n' "$out" > "$TMP/default.json"
run "$C" policy check "$TMP/default.json"
is "$rc:$err" "0:" "the embedded default checks valid"
is "$(printf '%s\n' "$out" | sed 1d)" "$(cat "$TMP/default.json")" "... and over itself it reads as itself"
is "$(printf '%s\n' "$out" | sed -n 1p)" "$TMP/default.json: valid; a run gets (the default, this file over it):" "... after one line naming the file"
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
bad '{"exec": []}' '1:10: "exec": [] adds nothing to the default'"'"'s 5 entries (a list adds to the default): take one away with a '"'"'-'"'"' before it, as "-/usr", or all with "-*"' "an empty list over the default's: an error, not a silent keep"
bad '{"exec": ["/opt", "-/opt2"]}' '1:19: "exec": "-/opt2" takes away nothing: the default'"'"'s "exec" has no "/opt2"' "taking away what is not there: an error at its entry"
bad '{"write": ["-/tmp"]}' '1:12: "write": "-/tmp" takes away nothing: the default'"'"'s "write" has no "/tmp" (it is empty)' "taking away from an empty list"
bad '{"exec": ["-usr"]}' '1:11: "exec": path "usr" is not absolute (start it with / or ~/)' "a removal is checked as a path"
bad '{"exec": ["-"]}' '1:11: "exec": empty entry' "a bare '-'"
bad '{"env": {"keep": ["-1A"]}}' '1:19: "env.keep": "1A" is not a valid environment variable name' "a removal is checked as a name"
bad '{"minimum_tier": "strong"}' '1:18: "minimum_tier" "strong" is not one of fs, fs+net, full' "unknown tier"

# lists add to the default; "-ENTRY" takes one away; check prints what a run gets
ex() { printf '%s\n' "$out" | grep '^  "exec": '; }
printf '{"exec": ["~/bin"]}\n' > "$TMP/bin.json"
run "$C" policy check "$TMP/bin.json"
is "$rc:$(ex)" '0:  "exec": ["/usr", "/bin", "/lib*", "/sbin", "/etc", "~/bin"],' "doctor's line adds ~/bin to the default's exec"
printf '{"exec": ["/usr", "/bin", "/lib*", "/sbin", "/etc", "~/bin"]}\n' > "$TMP/full.json"
run "$C" policy check "$TMP/full.json"
is "$rc:$(ex)" '0:  "exec": ["/usr", "/bin", "/lib*", "/sbin", "/etc", "~/bin"],' "the default's entries repeated: each once"
printf '{"exec": ["-/sbin", "~/bin", "-/etc"], "read": ["/srv"], "env": {"keep": ["EDITOR", "-EDITOR", "PAGER"]}}\n' > "$TMP/rm.json"
run "$C" policy check "$TMP/rm.json"
is "$rc:$(ex)" '0:  "exec": ["-*", "/usr", "/bin", "/lib*", "~/bin"],' "\"-/sbin\" and \"-/etc\" take the default's away, in order; printed after \"-*\""
like "$out" '"read": \["/srv"\],' "a list the default leaves empty: the file's"
like "$out" '"env": \{"keep": \["PAGER"\], ' "env.keep: added, and taken away again"
printf '%s\n' "$out" | sed 1d > "$TMP/printed.json"
cp "$TMP/printed.json" "$TMP/rm-printed.json"
run "$C" policy check "$TMP/printed.json"
is "$rc" 0 "what check prints is a valid policy"
is "$(printf '%s\n' "$out" | sed 1d)" "$(cat "$TMP/rm-printed.json")" "... and reads back as the same policy (the default's /sbin and /etc stay away)"
sed 's/"-\*", //' "$TMP/rm-printed.json" > "$TMP/nostar.json"
run "$C" policy check "$TMP/nostar.json"
is "$rc:$(ex)" '0:  "exec": ["/usr", "/bin", "/lib*", "/sbin", "/etc", "~/bin"],' "control: without \"-*\" the same list adds, and the default's come back"

# git_deps adds too; "-*" takes all of the default's
gd() { printf '%s\n' "$out" | grep '^  "git_deps": '; }
printf "{}\n" > "$TMP/empty.json"
run "$C" policy check "$TMP/empty.json"
is "$rc:$(gd)" '0:  "git_deps": ["node_modules", ".venv", "venv", "target", "vendor/bundle"],' "control: the default's git_deps"
printf '{"git_deps": ["gen/deps", "-target"]}\n' > "$TMP/gd.json"
run "$C" policy check "$TMP/gd.json"
is "$rc:$(gd)" '0:  "git_deps": ["-*", "node_modules", ".venv", "venv", "vendor/bundle", "gen/deps"],' "git_deps: an entry adds to the default's, \"-target\" takes one away (printed after \"-*\")"
printf '{"git_deps": ["-*"], "exec": ["-*"]}\n' > "$TMP/none.json"
run "$C" policy check "$TMP/none.json"
is "$rc:$(gd):$(ex)" '0:  "git_deps": ["-*"],:  "exec": ["-*"],' "\"-*\": none, printed as \"-*\""
printf '%s\n' "$out" | sed 1d > "$TMP/printed.json"
run "$C" policy check "$TMP/printed.json"
is "$rc:$(gd):$(ex)" '0:  "git_deps": ["-*"],:  "exec": ["-*"],' "... which reads back as the same policy"
bad '{"git_deps": []}' '1:14: "git_deps": [] adds nothing to the default'"'"'s 5 entries (a list adds to the default): take one away with a '"'"'-'"'"' before it, as "-node_modules", or all with "-*"' "git_deps: [] is an error naming \"-*\""

# the scenario of issue 22: doctor's line, pasted into a policy, and a run
for who in root nobody; do
	B=$TMP/$who
	mkdir -p "$B/h/bin" "$B/w" "$B/st"
	printf '#!/bin/sh\necho mytool ran\n' > "$B/h/bin/mytool"
	chmod 0755 "$B/h/bin/mytool" "$B"
	cp "$TMP/bin.json" "$B/bin.json"
	echo '{"exec": ["-/etc"]}' > "$B/noetc.json"
	if [ $who = root ]; then AS=""; else AS=as_nobody; chown -R nobody "$B"; fi
	R() { (cd "$B/w" && $AS env -i HOME="$B/h" PATH="$B/h/bin:/usr/bin:/bin" XDG_STATE_HOME="$B/st" "$C" run --quiet "$@"); }
	run R -p "$B/bin.json" -- sh -c 'ls /usr/bin/env && mytool'
	is "$rc:$out" "0:/usr/bin/env
mytool ran" "$who: \"exec\": [\"~/bin\"]: ls runs (the system grants stay) and ~/bin's tool too"
	run R -- sh -c 'ls /usr/bin/env && mytool'
	is "$rc" 127 "$who: control: without it, ~/bin's tool is not found"
	run R -p "$B/noetc.json" -- cat /etc/hostname
	is "$rc" 1 "$who: \"-/etc\": /etc is taken away"
	like "$err" "cat: /etc/hostname: Permission denied" "$who: ... cat says so"
	run R -- cat /etc/hostname
	is "$rc:$out" "0:$(cat /etc/hostname)" "$who: control: the default grants /etc/hostname"
done

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
