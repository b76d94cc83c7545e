#!/bin/sh
# --in-place: a repository nested in the workspace is judged by content, not
# by timestamps. The agent appends core.fsmonitor to a submodule's in-worktree
# .git/config (the .git directory's timestamp does not change): that
# repository is moved aside, and the user's plain git status at the top runs
# nothing of the agent. Controls: the same line put there by the user runs
# (NoNewPrivs 0, the payload is live); a nested repository the agent left
# alone, or only read (git status inside it rewrites its index), stays. As
# root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	mkdir -p "$H" "$W"
	chmod 0700 "$H"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	U() { (cd "$W" && $AS env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 "$@"); }
	U sh -c 'git init -q . && git config user.email u@example.org && git config user.name u &&
	    echo a > a && git add a && git commit -qm a &&
	    for s in sub other; do git init -q $s && (cd $s && git config user.email u@example.org &&
	        git config user.name u && echo $s > f && git add f && git commit -qm $s); done &&
	    git add sub other 2>/dev/null && git commit -qm subs'
	printf '#!/bin/sh\ngrep NoNewPrivs /proc/$$/status > %s/marker\n' "$B" > "$B/p.sh"
	chmod 0755 "$B/p.sh"
	[ "$who" = nobody ] && chown nobody:nogroup "$B/p.sh"

	# control: the payload is live when the repository keeps it
	cp "$W/sub/.git/config" "$B/config.orig"
	printf '[core]\n\tfsmonitor = %s/p.sh\n' "$B" >> "$W/sub/.git/config"
	U git status >/dev/null 2>&1
	is "$(cat "$B/marker" 2>/dev/null)" "NoNewPrivs:	0" "$who: control: core.fsmonitor in a submodule's .git/config runs on git status at the top, unconfined"
	cp "$B/config.orig" "$W/sub/.git/config"
	rm -f "$B/marker"
	sleep 2		# the scene: repositories older than the run (the build before judged by ctime)

	# the agent appends it, and runs git status in the other one
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH=/usr/bin:/bin '$C' run --in-place -- sh -c '
	    printf \"[core]\\n\\tfsmonitor = $W/p.sh\\n\" >> sub/.git/config &&
	    printf \"#!/bin/sh\\ngrep NoNewPrivs /proc/\\\$\\\$/status > $B/marker\\n\" > p.sh && chmod +x p.sh &&
	    (cd other && git status >/dev/null) && echo done'"
	is "$rc:$out" "0:done" "$who: the agent's run ends"
	like "$err" "nested repositories or special files were moved aside" "$who: corral says a nested repository was moved aside"
	status_ok "$([ ! -e "$W/sub/.git" ]; echo $?)" "$who: the changed submodule's .git is moved aside"
	Q=$(ls -d "$H"/.local/state/corral/git/*/quarantine 2>/dev/null | head -n 1)
	like "$(cat "$Q/LIST" 2>/dev/null)" "	sub/.git$" "$who: the quarantine's LIST names sub/.git"
	status_ok "$([ -d "$W/other/.git" ]; echo $?)" "$who: control: a nested repository the agent only ran git status in stays"
	U git status >/dev/null 2>&1
	status_ok "$([ ! -e "$B/marker" ]; echo $?)" "$who: the user's git status at the top runs nothing of the agent"
	U git -C other status >/dev/null 2>&1
	status_ok "$([ ! -e "$B/marker" ]; echo $?)" "$who: ... nor git status in the repository that stayed"
}

suite root
suite nobody
done_testing
