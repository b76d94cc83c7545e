#!/bin/sh
# confine: options, rule files, usage errors and fail-closed refusals.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/confine
H=$T/helpers
M=$TMP/marker
SYS="-x /usr -r /etc"

run "$C" --help
is "$rc" 0 "--help exits 0"
like "$out" '^usage: confine \[-r PATH\]' "--help prints the synopsis"
run "$C" --version
is "$rc:$out" "0:confine $(sed -n 's/.*CORRAL_VERSION "\(.*\)"/\1/p' "$CORRAL_TOP/lib/version.h")" "--version"

run "$C" --bogus -- true
is "$rc:$err" "125:confine: usage: unknown option --bogus
confine: hint: confine --help" "unknown option: 125, one usage line and a hint"
run "$C" -r
is "$rc:$err" "125:confine: usage: option -r needs an argument
confine: hint: confine --help" "missing option argument: 125"
run "$C" --connect
is "$rc:$err" "125:confine: usage: option --connect needs an argument
confine: hint: confine --help" "missing long option argument: 125"
run "$C" -Z -- true
is "$rc:$err" "125:confine: usage: unknown option -Z
confine: hint: confine --help" "unknown short option: 125"
run "$C" $SYS
is "$rc:$err" "125:confine: usage: missing PROG
confine: hint: confine --help" "missing PROG: 125 and a hint"
run "$C" --connect 0 $SYS -- true
is "$rc:$err" "125:confine: usage: connect 0: port must be a number from 1 to 65535" "port 0 refused"
run "$C" --connect 80x $SYS -- true
is "$rc" 125 "port 80x refused"
run "$C" --no-network --connect 80 $SYS -- true
is "$rc:$err" "125:confine: usage: connect 80: port rules conflict with no-network" "--no-network with --connect"
run "$C" --keep-fd 2 $SYS -- true
is "$rc" 125 "--keep-fd below 3 refused"
run "$C" $SYS -o -- true
is "$rc" 125 "-o without a path rule refused"

# paths
run "$C" $SYS -r "$TMP/nope" -- sh -c "touch $M"
is "$rc:$err" "125:confine: fatal: unable to open $TMP/nope: No such file or directory
confine: hint: mark the rule optional if the path may be absent" "a missing path is an error"
status_ok "$([ ! -e "$M" ]; echo $?)" "... and nothing ran"
run "$C" $SYS -o -r "$TMP/nope" -- /bin/echo ran
is "$rc:$out" "0:ran" "-o makes a missing path optional"

# rule files
printf '# rules\n\nx /usr\n  r\t/etc\noptional r %s/nope\nconnect 443\n' "$TMP" >"$TMP/good"
run "$C" -f "$TMP/good" -- /bin/echo ran
is "$rc:$out" "0:ran" "-f FILE with comments, blanks, optional, connect"
printf 'x /usr\nr /etc\nread /tmp\n' >"$TMP/bad"
run "$C" -f "$TMP/bad" -- sh -c "touch $M"
is "$rc:$err" "125:confine: fatal: $TMP/bad:3: unknown word" "unknown word: 125 with the line number"
status_ok "$([ ! -e "$M" ]; echo $?)" "... and nothing ran"
printf 'x /usr\nno-network now\n' >"$TMP/bad2"
run "$C" -f "$TMP/bad2" -- true
is "$rc:$err" "125:confine: fatal: $TMP/bad2:2: unexpected argument" "argument to a bare word"
printf 'x\n' >"$TMP/bad3"
run "$C" -f "$TMP/bad3" -- true
is "$rc:$err" "125:confine: fatal: $TMP/bad3:1: missing argument" "missing argument"
run "$C" -f "$TMP/absent" -- true
is "$rc:$err" "125:confine: fatal: unable to read $TMP/absent: No such file or directory" "absent rule file"

# exec failures
run "$C" $SYS -- /nonexistent/prog
is "$rc" 127 "PROG not found: 127"
run "$C" $SYS -r "$TMP" -- "$TMP"
is "$rc" 126 "PROG not executable: 126"
run "$C" $SYS -- sh -c 'exit 7'
is "$rc" 7 "PROG's status passes through"

# fail closed: no Landlock, an older ABI
for who in root nobody; do
	AS=; [ $who = nobody ] && AS=as_nobody
	rm -f "$M"; chmod 0777 "$TMP"
	run $AS "$H/nolandlock" "$C" $SYS -- sh -c "touch $M"
	is "$rc" 125 "$who: no Landlock: 125"
	is "$err" "confine: fatal: Landlock is not available (filesystem rules need Landlock ABI 1; this kernel has ABI 0)
confine: hint: boot a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= list" \
	    "$who: ... naming the feature and the ABI, with a hint"
	status_ok "$([ ! -e "$M" ]; echo $?)" "$who: ... and nothing ran"
	run $AS "$H/fakeabi" 3 "$C" --connect 443 --no-scope $SYS -- sh -c "touch $M"
	is "$rc:$err" "125:confine: fatal: TCP port rules (--connect) need Landlock ABI 4; this kernel has ABI 3
confine: hint: drop --connect and --bind (network open), or use --no-network" "$who: --connect on ABI 3: refused"
	status_ok "$([ ! -e "$M" ]; echo $?)" "$who: ... and nothing ran"
	run $AS "$H/fakeabi" 3 "$C" --bind 8080 --no-scope $SYS -- true
	is "$rc" 125 "$who: --bind on ABI 3: refused"
	run $AS "$H/fakeabi" 5 "$C" $SYS -- sh -c "touch $M"
	is "$rc:$err" "125:confine: fatal: signal and abstract unix socket scoping (default scope) need Landlock ABI 6; this kernel has ABI 5
confine: hint: pass --no-scope to run without signal and abstract socket scoping" "$who: scoping on ABI 5: refused"
	status_ok "$([ ! -e "$M" ]; echo $?)" "$who: ... and nothing ran"
	run $AS "$H/fakeabi" 3 "$C" --no-scope $SYS -w "$TMP" -- sh -c "touch $M"
	is "$rc" 0 "$who: ABI 3 with --no-scope and no port rules runs"
	status_ok "$([ -e "$M" ]; echo $?)" "$who: ... and the program ran"
	run $AS "$H/fakeabi" 0 "$C" $SYS -- true
	is "$rc" 125 "$who: Landlock absent (EOPNOTSUPP): 125"
	chmod 0755 "$TMP"
done
# --no-symlinks: a rule is what its real name reaches, opened without
# following a link; a link anywhere on it (as a racing agent leaves one) is
# refused, whatever it points to
mkdir -p "$TMP/nl/real" "$TMP/nl/home"
echo secret > "$TMP/nl/home/key"
echo fine > "$TMP/nl/real/f"
ln -s home "$TMP/nl/lnk"
ln -s "$TMP/nl/home" "$TMP/nl/real/in"
chmod -R a+rX "$TMP/nl"
for who in root nobody; do
	AS=; [ $who = nobody ] && AS=as_nobody
	run $AS "$C" --no-symlinks $SYS -r "$TMP/nl/real" -- cat "$TMP/nl/real/f"
	is "$rc:$out" "0:fine" "$who: --no-symlinks: control: a real path is granted"
	run $AS "$C" $SYS -r "$TMP/nl/lnk" -- cat "$TMP/nl/home/key"
	is "$rc:$out" "0:secret" "$who: control: without it a link is followed"
	run $AS "$C" --no-symlinks $SYS -r "$TMP/nl/lnk" -- cat "$TMP/nl/home/key"
	is "$rc:$out:$err" "125::confine: fatal: unable to open $TMP/nl/lnk without following a symbolic link: one lies on its path
confine: hint: a link appeared where none was when the rules were made: see what changed there" "$who: --no-symlinks: a link as the last component: 125, nothing ran"
	run $AS "$C" --no-symlinks $SYS -r "$TMP/nl/real/in/key" -- cat "$TMP/nl/home/key"
	is "$rc:$out" "125:" "$who: --no-symlinks: a link on the way: 125"
	run $AS "$C" --no-symlinks $SYS -o -r "$TMP/nl/absent" -- true
	is "$rc" 0 "$who: --no-symlinks: -o still skips a missing path"
	run $AS "$C" --no-symlinks $SYS -r "$TMP/nl/real/../real" -- true
	is "$rc:$err" "125:confine: fatal: $TMP/nl/real/../real: with --no-symlinks a path rule must be absolute, without . or .. or an empty component
confine: hint: name it as realpath(1) prints it" "$who: --no-symlinks: a name that is not real: 125"
done
# --gate FD: everything set up, the program runs only on the go byte 'g'
# read from the read end of a pipe; EOF or anything else: 125, nothing run
# (its marker never appears). Fail closed: a gate that is missing, not a
# pipe, or open for writing too is refused before anything is set up.
G=$TMP/gate
mkdir -p "$G"
chmod 0777 "$G"
# held: a confine of this test reading its gate (read(2) on descriptor 3)
held() {
	for p in $(pgrep -f -- "--gate 3 -- sh -c touch $G/"); do
		case "$(cat /proc/$p/syscall 2>/dev/null)" in "0 0x3 "*) return 0 ;; esac
	done
	return 1
}
# gate_hold CMD...: CMD (a confine with --gate 3) started in the
# background on a fresh $G, its gate a FIFO whose write end is 7, until it
# holds; gate_go: the go byte, then its status
gate_hold() {
	rm -rf "$G"/*
	mkfifo "$G/fifo"
	chmod 0666 "$G/fifo"
	"$@" 3<"$G/fifo" </dev/null &
	cpid=$!
	exec 7>"$G/fifo"
	i=0; while ! held && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
}
gate_go() {
	printf g >&7
	exec 7>&-
	wait $cpid
}
# entered DIR: the confine held (as above) has entered DIR, its 'r' done
# (--chdir is its last step); waited for, bounded
entered() {
	i=0
	while [ $i -lt 600 ]; do
		for p in $(pgrep -f -- "--gate 3 -- sh -c touch $G/"); do
			[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$1" ] && return 0
		done
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
for who in root nobody; do
	if [ $who = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	rm -rf "$G"/*
	run sh -c "printf g | $AS '$C' $SYS -w '$G' --gate 3 -- sh -c 'touch $G/ran; (: <&3) 2>/dev/null && echo open || echo closed' 3<&0 </dev/null 2>/dev/null"
	is "$rc:$out:$(ls "$G")" "0:closed:ran" "$who: --gate: control: the go byte runs the program, which never holds the gate"
	rm -f "$G"/*
	run sh -c ": | $AS '$C' $SYS -w '$G' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$err:$(ls "$G")" "125::" "$who: --gate: EOF: 125, not a word (the gate's holder says why), nothing ran"
	run sh -c "printf x | $AS '$C' $SYS -w '$G' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$err:$(ls "$G")" "125:confine: fatal: --gate 3: not the go byte: the program was not run:" "$who: --gate: another byte: 125, nothing ran"
	printf g > "$TMP/gfile"
	run sh -c "$AS '$C' $SYS -w '$G' --gate 3 -- touch '$G/ran' 3<'$TMP/gfile'"
	is "$rc:$(ls "$G")" "125:" "$who: --gate: a file holding the go byte is no gate: 125, nothing ran"
	like "$err" "^confine: fatal: --gate 3: not the read end of a pipe" "$who: ... says why"
	run sh -c "$AS '$C' $SYS -w '$G' --gate 7 -- touch '$G/ran' 7<&-"
	is "$rc:$(ls "$G")" "125:" "$who: --gate: a descriptor that is not open: 125, nothing ran"
	like "$err" "^confine: fatal: --gate 7: not an open descriptor" "$who: ... says why"
	rm -f "$G/fifo"
	mkfifo "$G/fifo"
	chmod 0666 "$G/fifo"
	run sh -c "$AS '$C' $SYS -w '$G' --gate 3 -- touch '$G/ran' 3<>'$G/fifo'"
	is "$rc:$(ls "$G")" "125:fifo" "$who: --gate: a fifo open for writing too (never EOF): 125, nothing ran"
	like "$err" "^confine: fatal: --gate 3: not the read end of a pipe" "$who: ... says why"
	run $AS "$C" $SYS --keep-fd 3 --gate 3 -- true
	is "$rc" 125 "$who: --gate: the descriptor kept for the program: 125"
	run $AS "$C" $SYS --gate 2 -- true
	is "$rc" 125 "$who: --gate below 3: 125"
	# held at the gate: set up (the broker's child waits in read(2) on
	# it), and the program has not run until the byte comes
	gate_hold $AS "$C" $SYS --filter-ip -w "$G" --gate 3 -- sh -c "touch $G/ran"
	status_ok "$(held; echo $?)" "$who: --gate: confine holds the program at its gate (read on descriptor 3)"
	status_ok "$([ ! -e "$G/ran" ]; echo $?)" "$who: ... and it has not run"
	gate_go
	is "$?:$(ls "$G" | grep -v fifo)" "0:ran" "$who: ... the go byte: it runs"
	# --on-go: the next path rule is opened once the go byte came: a
	# directory made while confine waits at its gate is granted, and the
	# boundary is in force (the rest of $G is not); control: without
	# --on-go the same missing path refuses before the gate
	gate_hold $AS "$C" $SYS --filter-ip --on-go -w "$G/late" --gate 3 -- sh -c "touch $G/late/ran; touch $G/out 2>/dev/null || echo refused > $G/late/out"
	status_ok "$(held; echo $?)" "$who: --on-go: confine holds the program at its gate before the path exists"
	mkdir "$G/late"
	chmod 0777 "$G/late"
	gate_go
	is "$?:$(ls "$G/late" | tr '\n' ' ')$(cat "$G/late/out" 2>/dev/null):$(ls "$G" | grep -c '^out$')" "0:out ran refused:0" "$who: ... made meanwhile, it is granted after the go byte; the rest is not"
	run sh -c "printf g | $AS '$C' $SYS -w '$G/absent' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$(ls "$G" | grep -c '^ran$')" "125:0" "$who: --on-go: control: without it a missing path refuses at once: 125, nothing ran"
	like "$err" "^confine: fatal: unable to open $G/absent: No such file or directory" "$who: ... says why"
	run sh -c "printf g | $AS '$C' $SYS --on-go -w '$G/absent' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$(ls "$G" | grep -c '^ran$')" "125:0" "$who: --on-go: a path still missing after the go byte: 125, nothing ran"
	like "$err" "^confine: fatal: unable to open $G/absent: No such file or directory" "$who: ... says why"
	ln -s "$G/late" "$G/lnk"
	run sh -c "printf g | $AS '$C' $SYS --no-symlinks --on-go -w '$G/lnk' --gate 3 -- touch '$G/lnk/ran2' 3<&0 </dev/null"
	is "$rc:$(ls "$G/late" | grep -c '^ran2$')" "125:0" "$who: --on-go --no-symlinks: a link there after the go byte: 125, nothing ran"
	# --chdir: the program starts there, entered after the go byte: a
	# directory made while confine waits at its gate (corral's checkout)
	gate_hold $AS "$C" $SYS --filter-ip --on-go -w "$G/cwd" --chdir "$G/cwd" --gate 3 -- sh -c "touch $G/cwd/ran; pwd > out"
	status_ok "$(held; echo $?)" "$who: --chdir: confine holds the program at its gate before the directory exists"
	mkdir "$G/cwd"
	chmod 0777 "$G/cwd"
	gate_go
	is "$?:$(cat "$G/cwd/out" 2>&1)" "0:$G/cwd" "$who: ... made meanwhile, the program starts in it"
	run sh -c "cd / && $AS '$C' $SYS -w '$G' --chdir '$G/cwd' -- pwd"
	is "$rc:$out" "0:$G/cwd" "$who: --chdir without a gate: the program starts there"
	run sh -c "cd / && $AS '$C' $SYS -w '$G' -- pwd"
	is "$rc:$out" "0:/" "$who: control: without --chdir it starts where confine was started"
	ln -s "$G/cwd" "$G/lnk"
	run sh -c "$AS '$C' $SYS -w '$G' --chdir '$G/lnk' -- touch ran3"
	is "$rc:$(ls "$G/cwd" | grep -c '^ran3$')" "125:0" "$who: --chdir through a symbolic link: 125, nothing ran"
	like "$err" "^confine: fatal: unable to enter $G/lnk: " "$who: ... says why"
	run sh -c "printf g | $AS '$C' $SYS -w '$G' --gate 3 --chdir '$G/absent' -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$(ls "$G" | grep -c '^ran$')" "125:0" "$who: --chdir: a directory still missing after the go byte: 125, nothing ran"
	like "$err" "^confine: fatal: unable to enter $G/absent: No such file or directory" "$who: ... says why"
	# 'r' before the go byte: what waits for the paths (the --on-go rules,
	# Landlock, --chdir) is done on it, the program still held; after
	# 'g' only the exec is left. An order of events: a directory put in
	# the place of the one opened on 'r' is neither granted nor entered
	# (the program's files land in the one moved away); control: on 'g'
	# alone the directory there at 'g' is both
	for mode in ready go; do
		gate_hold $AS "$C" $SYS --filter-ip --on-go -w "$G/late" --chdir "$G/late" --gate 3 -- sh -c "touch $G/late/ran 2>err; pwd > pwd"
		status_ok "$(held; echo $?)" "$who: --gate ($mode): confine holds the program at its gate before the directory exists"
		mkdir "$G/late"
		chmod 0777 "$G/late"
		if [ $mode = ready ]; then
			printf r >&7
			status_ok "$(entered "$G/late"; echo $?)" "$who: --gate: on 'r' confine opens and enters the directory made meanwhile"
			status_ok "$([ ! -e "$G/late/pwd" ]; echo $?)" "$who: ... and the program has not run"
		fi
		mv "$G/late" "$G/was"
		mkdir "$G/late"
		chmod 0777 "$G/late"
		gate_go
		grc=$?
		if [ $mode = ready ]; then
			is "$grc:$(ls "$G/late" | tr '\n' ' '):$(cat "$G/was/pwd" 2>&1):$(grep -c 'Permission denied' "$G/was/err")" "0::$G/was:1" "$who: ... the go byte: it runs where it was on 'r', granted that, not the directory there now"
		else
			is "$grc:$(ls "$G/late" | tr '\n' ' '):$(cat "$G/late/pwd" 2>&1):$(cat "$G/late/err"):$(ls "$G/was")" "0:err pwd ran :$G/late::" "$who: control: 'g' alone: the directory there at 'g' is granted and entered"
		fi
	done
	rm -rf "$G"/*
	run sh -c "printf rg | $AS '$C' $SYS -w '$G' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$err:$(ls "$G")" "0::ran" "$who: --gate: 'r' with nothing waiting for it, then 'g': the program runs"
	rm -f "$G"/*
	run sh -c "printf r | $AS '$C' $SYS --on-go -w '$G' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$err:$(ls "$G")" "125::" "$who: --gate: 'r', then EOF: 125, not a word, nothing ran"
	run sh -c "printf rr | $AS '$C' $SYS --on-go -w '$G' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$err:$(ls "$G")" "125:confine: fatal: --gate 3: not the go byte: the program was not run:" "$who: --gate: 'r' twice: 125, nothing ran"
	run sh -c "printf rg | $AS '$C' $SYS --on-go -w '$G/absent' --gate 3 -- touch '$G/ran' 3<&0 </dev/null"
	is "$rc:$(ls "$G" | grep -c '^ran$')" "125:0" "$who: --on-go: a path still missing on 'r': 125, nothing ran"
	like "$err" "^confine: fatal: unable to open $G/absent: No such file or directory" "$who: ... says why"
done
run "$C" $SYS --chdir rel -- true
is "$rc:$err" "125:confine: usage: --chdir rel: not an absolute path" "--chdir with a relative path: 125"
run "$C" $SYS --on-go -w "$TMP" -- true
is "$rc:$err" "125:confine: usage: --on-go needs --gate: a rule is opened once the go byte came" "--on-go without --gate: 125"
run sh -c "printf g | '$C' $SYS --on-go --dev --gate 3 -- true 3<&0"
is "$rc:$err" "125:confine: usage: --on-go applies to -r, -x, -w, -W only" "--on-go before a rule that is no path rule: 125"
run sh -c "printf g | '$C' $SYS --gate 3 --on-go -- true 3<&0"
is "$rc:$err" "125:confine: usage: --on-go must precede a path rule" "--on-go at the end: 125"
done_testing
