#!/bin/sh
# sandbox-mcp file tools: traversal in every path argument, symlinks planted
# in the workspace, max_workspace_mb, each with its control.
. "$CORRAL_TOP/tests/lib/tap.sh"
. "$CORRAL_TOP/tests/lib/sbx.sh"
sbx_setup "$TMP/a"
sbx create_session
s=$(j .session_id)
W=$SBX_STORE/sessions/$s/workspace
echo outside > "$TMP/a/victim"

# control
sbx session_write_files '{"entries":[{"path":"d/e/f.txt","content":"one\ntwo\nthree\n"},{"path":"g.txt","content":"\u00e9t\u00e9"}]}'
is "$iserr:$(j '.written|length')" "false:2" 'write_files: two files, parents created'
like "$(j .checkpoint_id)" '^[0-9a-f]{40}$' 'write_files: a checkpoint follows'
is "$(cat "$W/d/e/f.txt")" "one
two
three" 'write_files: the content'
is "$(stat -c %a "$W/d/e/f.txt")" 644 'write_files: mode 0644'
sbx session_read_file '{"path":"d/e/f.txt","offset":4,"limit":3}'
is "$(j .content):$(j .total_bytes):$(j .length):$(j .has_more)" "two:14:3:true" 'read_file: offset and limit count bytes (drun)'
sbx session_read_file '{"path":"g.txt","offset":2,"limit":1}'
is "$(j .content):$(j .encoding)" "t:null" 'read_file: a two-byte character counts two'
sbx session_read_file '{"path":"g.txt","offset":1,"limit":1}'
is "$(j .content):$(j .encoding)" "qQ==:base64" 'read_file: half a character comes back exactly, as base64'
sbx session_read_file '{"path":"g.txt"}'
is "$(j .content):$(j .has_more)" "été:false" 'control: the whole file, as text'
sbx session_read_file '{"path":"d/e/f.txt","pattern":"^t"}'
is "$(j '[.matches[]|[.line_number,.byte_offset]]|@json')" '[[2,4],[3,8]]' 'read_file: pattern matches with line numbers and byte offsets'
sbx session_read_file '{"path":"d/e/f.txt","pattern":"^t","offset":5}'
is "$(j '[.matches[].line_number]|@json')" '[3]' 'read_file: a pattern searches only the window'
sbx session_read_file '{"path":"d/e/f.txt","pattern":"("}'
like "$text" 'pattern is not a valid extended regular expression' 'read_file: a bad pattern refused'
sbx session_read_files '{"paths":["g.txt","d/e/f.txt","nope"]}'
is "$(j '.files[0].content'):$(j '.files[1].bytes'):$(j '.files[2].error')" "été:14:nope: No such file or directory" 'read_files: each file, or its error'

# traversal and bad paths, in every path argument
for p in '../victim' '../../../../../../../etc/passwd' '/etc/passwd' 'd/../../victim' '' 'd//f' './g.txt' 'd/' 'a\u0000b' 'x\t'; do
	sbx session_read_file "{\"path\":\"$p\"}"
	r1=$iserr
	sbx session_read_files "{\"paths\":[\"g.txt\",\"$p\"]}"
	r2=$iserr
	sbx session_write_files "{\"entries\":[{\"path\":\"ok-first.txt\",\"content\":\"x\"},{\"path\":\"$p\",\"content\":\"PWNED\"}]}"
	r3=$iserr
	sbx session_delete_files "{\"paths\":[\"g.txt\",\"$p\"]}"
	r4=$iserr
	sbx session_diff "{\"paths\":[\"$p\"]}"
	r5=$iserr
	is "$r1$r2$r3$r4$r5" truetruetruetruetrue "path \"$p\" refused by read_file, read_files, write_files, delete_files, diff"
done
like "$text" 'control character' 'a control character: says so'
sbx session_read_file '{"path":"a\u0000b"}'
like "$text" 'NUL' 'NUL: says so'
sbx session_read_file '{"path":"../victim"}'
like "$text" 'path \.\./victim has a "\.\." component: refused' '.. : says so'
sbx session_read_file '{"path":"/etc/passwd"}'
like "$text" 'is absolute' 'absolute: says so'
is "$(cat "$TMP/a/victim")" outside 'the file outside is intact'
status_ok $([ ! -e "$W/ok-first.txt" ] && [ -e "$W/g.txt" ]; echo $?) 'nothing was touched before the refusal (the good entries neither)'
status_ok $(! grep -rq PWNED "$TMP/a" /etc/passwd; echo $?) 'nothing was written anywhere'

# symlinks planted by a command, then used by the file tools
sbx session_bash "{\"command\":\"ln -s $TMP/a/victim link; ln -s / root; ln -s $SBX_HOME home; ln -s d dlink; echo ok\"}"
is "$(j .stdout)" ok 'symlinks planted'
sbx session_read_file '{"path":"link"}'
like "$iserr:$text" 'true:.*link: a symbolic link' 'read_file: a symlink refused'
sbx session_read_file '{"path":"root/etc/passwd"}'
like "$iserr:$text" 'true:.*a symbolic link is on the way' 'read_file: through a symlinked directory refused'
sbx session_read_files '{"paths":["dlink/e/f.txt","link"]}'
like "$(j '.files[0].error'):$(j '.files[1].error')" 'symbolic link.*:.*symbolic link' 'read_files: both refused'
sbx session_write_files '{"entries":[{"path":"home/.ssh/id_ed25519","content":"PWNED"}]}'
is "$iserr" true 'write_files: through a symlink to the home refused'
is "$(cat "$SBX_HOME/.ssh/id_ed25519")" PRIVATE-KEY-MATERIAL 'the home is intact'
sbx session_write_files '{"entries":[{"path":"link","content":"replaced"}]}'
is "$iserr:$(cat "$TMP/a/victim")" "false:outside" 'write_files on a symlink replaces the link, never its target'
status_ok $([ -f "$W/link" ] && [ ! -L "$W/link" ]; echo $?) '... which is now a plain file'
sbx session_delete_files '{"paths":["home/.ssh/id_ed25519"]}'
is "$iserr" true 'delete_files: through a symlink refused'
status_ok $([ -f "$SBX_HOME/.ssh/id_ed25519" ]; echo $?) 'the key is still there'
sbx session_delete_files '{"paths":["root"]}'
is "$iserr:$(j '.deleted[0].deleted')" "false:true" 'delete_files: a symlink itself is removed, not followed'
status_ok $([ -d /etc ] && [ ! -e "$W/root" ]; echo $?) '... and / is untouched'
sbx session_delete_files '{"paths":["d","g.txt","absent"]}'
is "$(j '[.deleted[].deleted]|@json')" '[true,true,false]' 'delete_files: a directory, a file; an absent one reported'
status_ok $([ ! -e "$W/d" ] && [ ! -e "$W/g.txt" ]; echo $?) 'delete_files: gone'

# max_workspace_mb bounds every write
echo '{"max_workspace_mb": 1}' > "$SBX_CFG"
big=$(head -c 600000 /dev/zero | tr '\0' a)
printf '{"entries":[{"path":"x1","content":"%s"},{"path":"x2","content":"%s"}]}' "$big" "$big" > "$TMP/two.json"
sbx session_write_files "$(cat "$TMP/two.json")"
like "$iserr:$text" 'true:.*over max_workspace_mb \(1 MiB\): nothing written' 'a write over max_workspace_mb refused'
status_ok $([ ! -e "$W/x1" ] && [ ! -e "$W/x2" ]; echo $?) '... nothing written'
printf '{"entries":[{"path":"x1","content":"%s"}]}' "$big" > "$TMP/one.json"
sbx session_write_files "$(cat "$TMP/one.json")"
is "$iserr:$(wc -c < "$W/x1")" "false:600000" 'control: within the bound'
sbx session_write_files "$(cat "$TMP/one.json")"
is "$iserr" false 'control: replacing a file counts its old size out'
ls -A "$SBX_STORE/sessions/$s/stage" > "$TMP/stage"
is "$(cat "$TMP/stage")" "" 'no temporary file is left behind'
done_testing
