#!/bin/sh
# session-store: begin, end, list, show; --help, --version.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/session-store.sh"
st=$TMP/store

run "$SS" --help
status_ok $rc "--help exits 0"
like "$out" 'usage: session-store \[--store DIR\]' "--help prints the synopsis"
run "$SS" --version
is "$out" "session-store 0.1.0" "--version"
run "$SS" --store "$st"
is $rc 2 "no command: exit 2"
like "$err" '^session-store: usage: a command is required' "no command: usage line"
run "$SS" --store "$st" frobnicate
is $rc 2 "unknown command: exit 2"

run "$SS" --store "$st" begin --agent claude
status_ok $rc "begin exits 0"
id=$out
like "$id" '^[0-9a-f]{32}$' "begin prints only a 128-bit hex id"
is "$(stat -c %a "$st")" 700 "store created 0700"
is "$(stat -c %a "$st/attempts/$id")" 600 "record 0600"
run "$SS" --store "$st" begin --agent claude
[ "$out" != "$id" ]; status_ok $? "ids differ"
id2=$out
run "$SS" --store "$st" show "$id" --json
status_ok $rc "show --json"
like "$out" "^\\{\"id\":\"$id\",\"agent\":\"claude\",\"pid\":$$,\"pid_start\":[0-9]+,\"start\":[0-9]+,\"end\":null\\}\$" \
	"record holds id, agent, the caller's pid and the start time"
run "$SS" --store "$st" show "$id"
like "$out" "agent claude" "show as text"

run "$SS" --store "$st" end "$id" --status 3 --platform linux --tier landlock-7
status_ok $rc "end exits 0"
run "$SS" --store "$st" show "$id" --json
like "$out" '"end":[0-9]+,"status":3,"platform":"linux","tier":"landlock-7"}$' "end recorded status, platform, tier"
is "$(ls -A "$st/attempts" | sort | tr '\n' ' ')" "$(printf '%s\n' "$id" "$id2" | sort | tr '\n' ' ')" \
	"end: the record replaced, nothing else left (the old one unlinked)"
run "$SS" --store "$st" end "$id" --status 0
is $rc 1 "second end refused: exit 1"
like "$err" "^session-store: fatal: attempt $id has already ended\$" "second end: message"
run "$SS" --store "$st" show "$id" --json
like "$out" '"status":3' "second end changed nothing"

run "$SS" --store "$st" list
is "$(printf '%s\n' "$out" | wc -l)" 2 "list: one line per attempt"
like "$out" "^$id	claude	$$	[0-9]+	[0-9]+	3	linux	landlock-7" "list: ended attempt fields"
like "$out" "$id2	claude	$$	[0-9]+	-	-	-	-" "list: running attempt fields"
run "$SS" --store "$st" list --json
like "$out" '^\[\{.*\},\{.*\}\]$' "list --json is one array"

run "$SS" --store "$st" begin --agent 'Bad/Name'
is $rc 2 "bad agent name: exit 2"
like "$err" "^session-store: fatal: bad agent name" "bad agent: message"
run "$SS" --store "$st" begin
is $rc 2 "begin without --agent: exit 2"
run "$SS" --store "$st" show 1234
is $rc 2 "short id: exit 2"
run "$SS" --store "$st" show 0123456789abcdef0123456789abcdef
is $rc 1 "unknown attempt: exit 1"
like "$err" "^session-store: fatal: attempt 0123456789abcdef0123456789abcdef: No such file or directory" "unknown attempt: message"
run "$SS" --store "$st" end "$id2" --status 256
is $rc 2 "status out of range: exit 2"
run "$SS" --store "$st" end "$id2" --status 0 --platform 'a b'
is $rc 2 "bad platform: exit 2"
run "$SS" --store "$st" end "$id2"
is $rc 2 "end without --status: exit 2"
run "$SS" --store "$st" begin --agent claude --pid 99999999
is $rc 2 "begin --pid out of range: exit 2"

# A damaged record is reported, never half-read.
printf '{"id":"%s","agent":"claude"' "$id2" > "$st/attempts/$id2"
run "$SS" --store "$st" show "$id2"
is $rc 2 "damaged record: exit 2"
run "$SS" --store "$st" list
like "$err" "attempt $id2: unreadable record, skipped" "list skips a damaged record, with a warning"
done_testing
