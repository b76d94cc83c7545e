#!/bin/sh
# corral run --full-setup: the agent's own folder of the real home is granted
# read-write and found at ~/ in the private home; the rest stays unreachable.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	mkdir -p "$H/.claude" "$W"
	echo '{"theme":"dark"}' > "$H/.claude/settings.json"
	echo "ssh-secret-$who" > "$H/.ssh-key"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	run sh -c "cd '$W' && exec $AS env -i HOME='$H' PATH=/usr/bin:/bin '$C' run -a claude --full-setup -- sh -c 'cat ~/.claude/settings.json && echo written > ~/.claude/new; cat \"$H/.ssh-key\" 2>/dev/null || echo no-key'"
	is "$rc:$(echo $out)" '0:{"theme":"dark"} no-key' "$who: ~/.claude (the real one) read through the private home; the rest unreachable"
	is "$(cat "$H/.claude/new" 2>/dev/null)" "written" "$who: writes land in the real ~/.claude"
	status_ok "$([ -e "$H/.claude/settings.json" ] && [ "$(ls "$H/.local/state/corral" | grep -c '^a[0-9a-f]\{10\}$')" = 0 ]; echo $?)" "$who: finish removed the private home, not the linked folder"
	run sh -c "cd '$W' && exec $AS env -i HOME='$H' PATH=/usr/bin:/bin '$C' explain -a claude --full-setup -- true"
	like "$out" "create .* --agent claude .* --full-setup\\) \\|\\| exit 125$" "$who: explain: home-stage create --full-setup with the agent's own profile"
	unlike "$out" "nosignin" "$who: ... not the no-sign-in override"
done
done_testing
