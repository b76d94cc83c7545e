#!/bin/sh
# The import is bounded by real content (issue 29.8): a sparse file the agent
# names as a loose object (2 GiB of size, a few KiB of disk) is left out and
# said so, never written out in full into the store, even when the attempt
# directory is kept (a FIFO in the checkout is quarantined). Control: the
# agent's real commit beside it comes back on its branch. Root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	mkdir -p "$H" "$W"
	chmod 0700 "$H"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	(cd "$W" && $AS env -i HOME="$H" PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 sh -c 'git init -q . &&
	    git config user.email u@example.org && git config user.name u && echo a > a && git add a && git commit -qm a')
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH=/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 '$C' run -- sh -c '
	    o=\$(git rev-parse --git-path objects)/ab && mkdir -p \"\$o\" &&
	    truncate -s 2G \"\$o/cdef0123456789abcdef0123456789abcdef01\" &&
	    echo agent > f && git add f && git -c user.email=a@example.org -c user.name=a commit -qm agent &&
	    mkfifo fifo && echo done'"
	is "$rc:$out" "0:done" "$who: the agent's run ends"
	like "$err" "git: 1 of the attempt's object files left out \\(not a git object file, sparse, or past" "$who: the sparse object is left out, and corral says so"
	kb=$(du -sk "$H/.local/state/corral" | cut -f1)
	status_ok "$([ "$kb" -lt 65536 ]; echo $?)" "$who: the store holds ${kb} KiB: the 2 GiB object was not written out"
	like "$err" "moved aside" "$who: the attempt directory is kept (a FIFO was quarantined)"
	br=$(cd "$W" && $AS git for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -n 1)
	is "$(cd "$W" && $AS git show "$br:f" 2>&1)" agent "$who: control: the agent's real commit comes back on $br"
}

suite root
suite nobody
done_testing
