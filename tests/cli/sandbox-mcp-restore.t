#!/bin/sh
# sandbox-mcp session_restore and session_fork are bounded by
# max_workspace_mb, every file counted at its full size (a sparse file, the
# same blob three times): a 90 MB workspace whose snapshot is a few KB is
# refused under 20 MB with nothing written (no session made), and restored
# whole under 200 MB (control). SDK client; root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbxsdk.sh"

for who in root nobody; do
D=$TMP/$who
mkdir -p "$D/home"
SDK_AS=
if [ "$who" = nobody ]; then
	chown -R nobody:nogroup "$D"
	SDK_AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"
fi
# the san build under RLIMIT_AS: no memory bound (tap.sh says why)
M=
san_rlimit_as $SDK_AS && M='"max_memory_mb": 0, '
big="{$M\"max_workspace_mb\": 200, \"max_sessions\": 8, \"bash_timeout_ms\": 60000}"
small='{"max_workspace_mb": 20, "max_sessions": 8}'
cat > "$D/s1" <<'JSON'
[{"call": "create_session"},
 {"call": "session_bash", "args": {"command": "truncate -s 30M sparse && cp sparse dup1 && cp sparse dup2 && du -sk . | cut -f1"}},
 {"call": "session_snapshot"}]
JSON
echo "$big" > "$D/cfg.json"
sdk_run "$D/s1" --store "$D/store" --config "$D/cfg.json"
like "$(r session_bash 1)" '"isError":false' "$who: a workspace of three 30 MB files"
snap=$(rj session_snapshot 1 .snapshot)
sz=$(stat -c %s "$D/store/snapshots/$snap")
[ "$sz" -lt 1000000 ]; status_ok $? "$who: its snapshot is small ($sz bytes)"
cat > "$D/s2" <<JSON
[{"call": "session_restore", "args": {"snapshot": "$snap"}},
 {"call": "session_fork"},
 {"call": "session_list"}]
JSON
echo "$small" > "$D/cfg.json"
sdk_run "$D/s2" --store "$D/store" --config "$D/cfg.json"
like "$(r session_restore 1)" '"isError":true.*holds 94371840 bytes.*over max_workspace_mb.*nothing written' "$who: restore under 20 MB refused, every file at its full size"
is "$(rj session_list 1 '.sessions|length')" 1 "$who: no session was left by the refused restore"
echo "$big" > "$D/cfg.json"
sdk_run "$D/s2" --store "$D/store" --config "$D/cfg.json"
like "$(r session_restore 1)" '"isError":false' "$who: control: under 200 MB it is restored"
R=$D/store/sessions/$(rj session_restore 1 .session_id)/workspace
is "$(stat -c %s "$R/sparse"):$(stat -c %s "$R/dup2")" "31457280:31457280" "$who: control: the files whole"
like "$(r session_fork 1)" '"isError":false' "$who: control: fork under 200 MB"
echo "$small" > "$D/cfg.json"
cat > "$D/s3" <<JSON
[{"call": "session_fork", "args": {"session_id": "$(rj session_restore 1 .session_id)"}}]
JSON
sdk_run "$D/s3" --store "$D/store" --config "$D/cfg.json"
like "$(r session_fork 1)" '"isError":true.*over max_workspace_mb' "$who: fork under 20 MB refused"
done
done_testing
