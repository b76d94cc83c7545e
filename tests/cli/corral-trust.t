#!/bin/sh
# Nothing the agent wrote is trusted afterwards (1/2): a policy file the
# boundary could have written is refused (corral policy approve lets a
# reviewed one in, until it changes), and so is a grant, the workspace, a
# PATH directory or an env file reached through a symbolic link the agent
# could have planted. Each attack beside its control, as root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
HINT_POL="corral: hint: keep your policies in ~/.config/corral/ (yours, not writable by others), or review this one and run: corral policy approve"
HINT_LINK="corral: hint: see what the agent changed there; name real paths outside the agent's reach in the policy"

suite() {	# suite WHO
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who H=$TMP/$who/home W=$TMP/$who/ws
	CFG=$H/.config/corral ST=$H/.local/state/corral
	mkdir -p "$H/.ssh" "$W/data" "$CFG" "$B/out/sub"
	echo "SSH-PRIVATE-KEY-$who" > "$H/.ssh/id_ed25519"
	chmod 600 "$H/.ssh/id_ed25519"
	echo "data-$who" > "$W/data/file"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	chmod 0700 "$H"
	E="env -i HOME=$H PATH=/usr/bin:/bin LANG=C.UTF-8"
	R() { (cd "$W" && $AS $E "$C" run "$@"); }
	X() { (cd "$W" && $AS $E "$C" "$@"); }
	put() { printf '%s\n' "$2" > "$1"; [ "$who" = root ] || chown nobody:nogroup "$1"; }
	leaked() { [ -e "$B/out/planted" ] || printf '%s' "$out$err" | grep -q "SSH-PRIVATE-KEY\|^ran$"; }

	# 1. where the policy lives
	put "$CFG/p.json" '{"network": "none"}'
	run R -p "$CFG/p.json" -- sh -c 'echo ran'
	is "$rc:$out:$err" "0:ran:" "$who: control: a policy of yours in ~/.config/corral runs"

	put "$W/.corral.json" "{\"network\": \"open\", \"write\": [\"$B/out\"]}"
	run R -p .corral.json -- sh -c "echo ran; touch $B/out/planted"
	is "$rc" 125 "$who: a policy in the workspace: 125"
	is "$err" "corral: fatal: policy .corral.json lies in the workspace $W, which the agent can write: refused
$HINT_POL .corral.json" "$who: in the workspace: the refusal, with the hint"
	leaked; status_ok $((! $?)) "$who: in the workspace: nothing ran, nothing written"
	run X explain -p .corral.json -- true
	is "$rc:$out" "1:" "$who: explain refuses it too (1), prints no chain"

	put "$B/out/w.json" "{\"write\": [\"$B/out\"]}"
	run R -p "$B/out/w.json" -- sh -c 'echo ran'
	is "$rc:$err" "125:corral: fatal: policy $B/out/w.json lies in the write grant $B/out, which the agent can write: refused
$HINT_POL $B/out/w.json" "$who: a policy inside its own write grant: 125"

	ln -s "$CFG/p.json" "$W/link.json"
	run R -p "$W/link.json" -- sh -c 'echo ran'
	is "$rc:$err" "125:corral: fatal: policy $W/link.json is reached through the symbolic link $W/link.json, in the workspace $W, which the agent can write: refused
$HINT_POL $W/link.json" "$who: a link in the workspace to a good policy: 125"
	ln -s p.json "$CFG/alias.json"
	run R -p "$CFG/alias.json" -- sh -c 'echo ran'
	is "$rc:$out" "0:ran" "$who: control: a link in ~/.config/corral to it runs"

	put "$CFG/ww.json" '{"network": "none"}'
	chmod 0666 "$CFG/ww.json"
	run R -p "$CFG/ww.json" -- sh -c 'echo ran'
	is "$rc:$err" "125:corral: fatal: policy $CFG/ww.json is group- or world-writable: refused
$HINT_POL $CFG/ww.json" "$who: a world-writable policy: 125"
	chmod 0620 "$CFG/ww.json"
	run R -p "$CFG/ww.json" -- sh -c 'echo ran'
	is "$rc" 125 "$who: a group-writable policy: 125"

	mkdir -p "$B/shared"
	chmod 0777 "$B/shared"
	put "$B/shared/p.json" '{"network": "none"}'
	run R -p "$B/shared/p.json" -- sh -c 'echo ran'
	is "$rc:$err" "125:corral: fatal: policy $B/shared/p.json lies in $B/shared, which others can write: refused
$HINT_POL $B/shared/p.json" "$who: a policy in a directory others can write: 125"
	chmod 1777 "$B/shared"
	run R -p "$B/shared/p.json" -- sh -c 'echo ran'
	is "$rc:$out" "0:ran" "$who: control: the same directory sticky (as /tmp): runs"

	if [ "$who" = root ]; then
		put "$CFG/theirs.json" '{"network": "none"}'
		chown nobody "$CFG/theirs.json"
		run R -p "$CFG/theirs.json" -- sh -c 'echo ran'
		is "$rc:$err" "125:corral: fatal: policy $CFG/theirs.json is owned by uid 65534, not by you: refused
$HINT_POL $CFG/theirs.json" "$who: a policy owned by someone else: 125"
		mkdir -p "$B/nb"
		chown nobody "$B/nb"
		put "$B/nb/p.json" '{"network": "none"}'
		run R -p "$B/nb/p.json" -- sh -c 'echo ran'
		is "$rc:$err" "125:corral: fatal: policy $B/nb/p.json lies in $B/nb, owned by uid 65534, who can replace it: refused
$HINT_POL $B/nb/p.json" "$who: a policy in a directory someone else owns: 125"
	else
		printf '{"network": "none"}\n' > "$TMP/rootpol.json"
		chmod 0644 "$TMP/rootpol.json"
		run R -p "$TMP/rootpol.json" -- sh -c 'echo ran'
		is "$rc:$err" "125:corral: fatal: policy $TMP/rootpol.json is owned by uid 0, not by you: refused
$HINT_POL $TMP/rootpol.json" "$who: a policy owned by root: 125"
		mkdir -p "$TMP/rootdir"
		chmod 0755 "$TMP/rootdir"
		cp "$CFG/p.json" "$TMP/rootdir/p.json"
		chown nobody:nogroup "$TMP/rootdir/p.json"
		run R -p "$TMP/rootdir/p.json" -- sh -c 'echo ran'
		is "$rc:$out" "0:ran" "$who: control: your policy in a root-owned directory runs"
	fi

	# approval: these bytes, recorded outside every grant
	run X policy approve .corral.json
	like "$rc:$out" "^0:approved $W/.corral.json \(sha256 [0-9a-f]{64}\)$" "$who: corral policy approve records it"
	ls "$ST/approved" | grep -Eq '^[0-9a-f]{64}$'; status_ok $? "$who: the record is in the state directory"
	run R -p .corral.json -- sh -c 'echo ran'
	is "$rc:$out" "0:ran" "$who: the approved in-workspace policy runs"
	run R -p .corral.json -- sh -c "printf '{\"network\": \"open\", \"write\": [\"$H\"]}\n' > .corral.json; echo 'x' > '$ST/approved/forged' 2>/dev/null || echo store-refused"
	is "$rc:$out" "0:store-refused" "$who: the agent rewrites it; it cannot write the approvals"
	run R -p .corral.json -- sh -c 'echo ran'
	is "$rc" 125 "$who: the changed policy: 125"
	like "$err" "^corral: fatal: policy .corral.json lies in the workspace $W, which the agent can write, and it changed since you approved it \(sha256 now [0-9a-f]{16}\.\.\.\): refused
corral: hint: review it, then approve it again: corral policy approve .corral.json$" "$who: changed: the refusal names the change"
	leaked; status_ok $((! $?)) "$who: changed: nothing ran"
	put "$W/.corral.json" '{"network": "none"}'
	X policy approve .corral.json >/dev/null
	run R -p .corral.json -- sh -c 'echo ran'
	is "$rc:$out" "0:ran" "$who: approved again: runs"
	printf '{"network": ' > "$TMP/badpol-$who.json"
	run X policy approve "$TMP/badpol-$who.json"
	is "$rc" 1 "$who: approving an invalid policy: 1"

	# 2. grants re-pointed with a symbolic link
	put "$CFG/r.json" "{\"read\": [\"$W/data\"]}"
	run R -p "$CFG/r.json" -- cat data/file
	is "$rc:$out" "0:data-$who" "$who: control: the read grant works"
	run R -- sh -c "rm -rf data && ln -s '$H/.ssh' data && echo relinked"
	is "$rc:$out" "0:relinked" "$who: the agent replaces data with a link to ~/.ssh"
	run R -p "$CFG/r.json" -- cat data/id_ed25519
	is "$rc" 125 "$who: the re-pointed read grant: 125"
	is "$err" "corral: fatal: policy \"read\" grants $W/data: its resolution passes through the symbolic link $W/data, in the workspace $W, which the agent can write
$HINT_LINK" "$who: re-pointed: the refusal"
	leaked; status_ok $((! $?)) "$who: re-pointed: the key did not leak"

	put "$CFG/w.json" "{\"write\": [\"$B/out\"], \"read\": [\"$B/out/sub\"]}"
	run R -p "$CFG/w.json" -- sh -c 'rmdir out/sub 2>/dev/null; ls "$0" >/dev/null && echo listed' "$B/out/sub"
	is "$rc:$out" "0:listed" "$who: control: a read grant under a write grant"
	run R -p "$CFG/w.json" -- sh -c "rmdir '$B/out/sub' && ln -s '$H/.ssh' '$B/out/sub' && echo relinked"
	is "$rc:$out" "0:relinked" "$who: the agent re-points a directory in its write grant"
	run R -p "$CFG/w.json" -- cat "$B/out/sub/id_ed25519"
	is "$rc:$err" "125:corral: fatal: policy \"read\" grants $B/out/sub: its resolution passes through the symbolic link $B/out/sub, in the write grant $B/out, which the agent can write
$HINT_LINK" "$who: a link in a write grant: 125"
	leaked; status_ok $((! $?)) "$who: write grant: the key did not leak"

	put "$CFG/o.json" "{\"write\": [\"$B/out\"]}"
	ln -s "$H" "$B/out/wslink"
	run R -p "$CFG/o.json" -w "$B/out/wslink/.ssh" -- cat id_ed25519
	is "$rc:$err" "125:corral: fatal: the workspace $B/out/wslink/.ssh: its resolution passes through the symbolic link $B/out/wslink, in the write grant $B/out, which the agent can write
$HINT_LINK" "$who: the workspace through a link in a write grant: 125"
	leaked; status_ok $((! $?)) "$who: workspace link: the key did not leak"
	ln -s "$W" "$B/wsalias"
	run R -w "$B/wsalias" -- cat data/id_ed25519
	is "$rc" 1 "$who: control: a workspace through a link outside the agent's reach runs (the agent's own status)"

	put "$CFG/e.json" "{\"env\": {\"files\": [\"$W/envfile\"]}}"
	ln -s "$H/.ssh/id_ed25519" "$W/envfile"
	run R -p "$CFG/e.json" -- env
	is "$rc:$err" "125:corral: fatal: the env file $W/envfile: its resolution passes through the symbolic link $W/envfile, in the workspace $W, which the agent can write
$HINT_LINK" "$who: an env file re-pointed: 125"
	leaked; status_ok $((! $?)) "$who: env file: the key did not leak"

	mkdir -p "$B/keys"
	echo "SSH-PRIVATE-KEY-$who-2" > "$B/keys/key"
	chmod 700 "$B/keys"
	[ "$who" = root ] || chown -R nobody:nogroup "$B/keys"
	ln -s "$B/keys" "$W/bin"
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH='$W/bin:/usr/bin:/bin' '$C' explain -- true"
	is "$(printf '%s\n' "$err" | grep -c "^corral: warning: PATH directory $W/bin is reached through a symbolic link in the workspace $W: not granted$")" 1 "$who: a PATH directory re-pointed: left out, with a warning"
	unlike "$out" "$B/keys" "$who: PATH: the link's target is not in the chain"
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH='$W/bin:/usr/bin:/bin' '$C' run -- cat '$W/bin/key'"
	like "$rc:$err" "^1:cat: $W/bin/key: Permission denied" "$who: PATH: the target is unreachable"
	leaked; status_ok $((! $?)) "$who: PATH: the key did not leak"
	rm "$W/bin"
	ln -s "$B/keys" "$B/binalias"
	run sh -c "cd '$W' && $AS env -i HOME='$H' PATH='$B/binalias:/usr/bin:/bin' '$C' run -- cat '$B/binalias/key'"
	is "$rc:$out" "0:SSH-PRIVATE-KEY-$who-2" "$who: control: a PATH directory through a link outside the agent's reach is granted"
}

suite root
suite nobody
done_testing
