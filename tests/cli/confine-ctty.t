#!/bin/sh
# confine --ctty: the controlling terminal the program runs on (a pts made
# by script(1) here, keeper --pty's under corral) is granted by its node,
# and no other terminal; without the flag (the control) writing it by name
# is refused; with no controlling terminal nothing is granted and the
# program runs. As root and as nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
F=$CORRAL_BIN/confine

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	rules="-x /usr -x /bin -x /lib -x /lib64 -x /etc -r /proc --dev"
	probe='t=$(tty); echo "tty=$t"; echo own > "$t" && echo wrote-own; echo dev > /dev/tty && echo wrote-devtty'
	run $AS script -qec "$F $rules --ctty -- sh -c '$probe'" /dev/null
	like "$out" "tty=/dev/pts/[0-9]+" "$who: --ctty: the program runs on a pts"
	like "$out" "wrote-own" "$who: ... which it writes by its name"
	like "$out" "wrote-devtty" "$who: ... and through /dev/tty"
	run $AS script -qec "$F $rules -- sh -c '$probe'" /dev/null
	unlike "$out" "wrote-own" "$who: control: without --ctty writing the terminal by its name is refused"
	like "$out" "Permission denied" "$who: ... Permission denied"
	run $AS setsid -w "$F" $rules --ctty -- sh -c 'echo ran'
	is "$rc:$out" "0:ran" "$who: no controlling terminal: nothing granted, the program runs"
	run $AS "$F" $rules --ctty --tty /dev/null -- true
	is "$rc" 125 "$who: --ctty with --tty: one tty rule only (125)"
done
done_testing
