#!/bin/sh
# mcp-proxy: options, help, version, usage errors.
. "$CORRAL_TOP/tests/lib/tap.sh"
P=$CORRAL_BIN/mcp-proxy

run "$P" --version
is "$rc" 0 '--version exits 0'
like "$out" '^mcp-proxy [0-9]+\.[0-9]+\.[0-9]+$' '--version prints the version'
run "$P" --help
is "$rc" 0 '--help exits 0'
like "$out" '^usage: mcp-proxy ' '--help prints the usage'
# the man page SYNOPSIS names every option --help names
for o in allow env timeout max-message audit audit-fd url token-file token-fd cacert listen-unix listen-http listen-token-file listen-token-fd help version; do
	like "$out" "--$o" "--help names --$o"
	grep -q "Fl -$o" "$CORRAL_TOP/mcp-proxy/mcp-proxy.1" || grep -q "Fl .*-$o" "$CORRAL_TOP/mcp-proxy/mcp-proxy.1"
	status_ok $? "man page names --$o"
done
run "$P"
is "$rc" 2 'no command: status 2'
is "$err" "mcp-proxy: usage: no upstream COMMAND
mcp-proxy: hint: mcp-proxy --allow echo -- node server.js" 'no command: usage line and hint'
run "$P" --allow 'e cho' -- true
is "$rc" 2 'invalid allow name: status 2'
like "$err" '^mcp-proxy: usage: invalid tool name for --allow' 'invalid allow name: message'
run "$P" --allow "$(printf '\320\265cho')" -- true
is "$rc" 2 'lookalike allow name refused'
run "$P" -t 0 -- true
is "$rc" 2 'zero timeout refused'
run "$P" -t x -- true
like "$err" '^mcp-proxy: usage: invalid --timeout: x$' 'bad timeout: message'
run "$P" -m 10 -- true
is "$rc" 2 'tiny max-message refused'
run "$P" --audit-fd 77 -- true
is "$rc" 2 'closed audit fd refused'
run "$P" --env A=B -- true
is "$rc" 2 '--env takes a name, not an assignment'
run "$P" --bogus -- true
is "$rc" 2 'unknown option: status 2'
ln -s /nonexistent "$TMP/link"
run "$P" --audit "$TMP/link" -- true
is "$rc" 2 'audit log through a symlink refused'
like "$err" '^mcp-proxy: fatal: unable to open the audit log .*link' 'audit symlink: message'
run mandoc -Tlint -Wwarning "$CORRAL_TOP/mcp-proxy/mcp-proxy.1"
is "$rc$out$err" 0 'man page lints clean'
done_testing
