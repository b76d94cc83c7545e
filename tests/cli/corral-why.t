#!/bin/sh
# corral why: the access the run's boundary gives each path or destination,
# the rule behind it, and the policy line that would grant what it denies.
. "$CORRAL_TOP/tests/lib/tap.sh"
C=$CORRAL_BIN/corral
H=$TMP/home W=$TMP/ws CFG=$TMP/cfg
mkdir -p "$H/.ssh" "$H/proj/data" "$H/bin" "$W/src" "$CFG" "$TMP/opt/tool"
touch "$H/.ssh/id_ed25519" "$W/src/a.c" "$H/notes.txt"
printf '#!/bin/sh\necho mytool ran\n' > "$H/bin/mytool"
chmod 0755 "$H/bin/mytool"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$W/outside.sock"
chmod 0755 "$H" "$W" "$TMP" "$CFG"
Y() { (cd "$W" && env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$TMP/st" "$C" why "$@"); }

for who in root nobody; do
	if [ $who = root ]; then pre=""; else pre=as_nobody; chown -R nobody "$H" "$W" "$CFG"; fi
	Yw() { (cd "$W" && $pre env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$TMP/st-$who" "$C" why "$@"); }

	run Yw "$W/src/a.c"
	is "$rc:$out" "0:$W/src/a.c: read-write: the workspace" "$who: the workspace"
	run Yw "$W/src/new.c"
	is "$rc:$out" "0:$W/src/new.c: read-write: the workspace" "$who: a file not yet made, by where it would be"
	run Yw /usr/bin/sh
	like "$out" "^/usr/bin/sh( -> .*)?" "$who: a system path"
	like "$out" ": read\\+exec: a system tree: /usr$" "$who: a system tree, read+exec"
	is "$rc" 0 "$who: granted: 0"
	run Yw /bin
	like "$out" "read\\+exec: (a system tree|a PATH directory): " "$who: /bin"

	run Yw "$H/.ssh/id_ed25519"
	is "$rc" 1 "$who: the home: denied, 1"
	is "$out" "$H/.ssh/id_ed25519: none: a credential in your home: nothing grants it by default
  to read it: \"read\": [\"~/.ssh/id_ed25519\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: a key in the home: the credential rule and the line that would grant it"
	run Yw "$H/notes.txt"
	is "$rc:$out" "1:$H/notes.txt: none: your home: never granted by default (the agent gets a private one)
  to read it: \"read\": [\"~/notes.txt\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: the home: the rule and the line that would grant it"
	run Yw "$H"
	is "$rc:$out" "1:$H: none: your home, or a directory holding it
  nothing a policy says can grant it" "$who: the home itself: nothing can grant it"
	run Yw /
	is "$rc" 1 "$who: / holds the home: denied"
	run Yw "$TMP/st-$who/corral/creds/claude"
	like "$out" "none: corral's state directory \\(sign-ins, attempts\\)" "$who: the store: never"
	run Yw "$TMP/opt/tool"
	is "$rc:$out" "1:$TMP/opt/tool: none: no rule grants it
  to read it: \"read\": [\"$TMP/opt/tool\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: outside every grant"
	run Yw /etc/shadow /etc/hostname
	is "$rc" 1 "$who: /etc/shadow: denied, 1"
	like "$out" "^/etc/shadow: none: a secret of /etc, left out of every grant that holds it \\(" "$who: /etc/shadow: the secret table's rule and reason"
	like "$out" "/etc/hostname: read\\+exec: a system tree: /etc" "$who: control: /etc/hostname is granted"
	run Yw /proc/self/status
	like "$out" "/proc/[0-9]+/status: read: /proc \\(\"proc\": true;" "$who: /proc read-only"
	run Yw /dev/null /dev/sda
	like "$out" "^/dev/null: read-write: a usable device" "$who: /dev/null"
	like "$out" "/dev/sda: none: /dev: only the usable devices" "$who: other devices"
	is "$rc" 1 "$who: one of several denied: 1"

	# the access the path needs, and the line that gives it
	run Yw "$H/bin/mytool"
	is "$rc:$out" "1:$H/bin/mytool: none: your home: never granted by default (the agent gets a private one)
  to run it: \"exec\": [\"~/bin/mytool\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: an executable: the exec line"
	run $pre env -i HOME="$H" PATH="$H/bin:/usr/bin:/bin" XDG_STATE_HOME="$TMP/st-$who" "$C" why "$H/bin"
	is "$rc:$out" "1:$H/bin: none: your home: never granted by default (the agent gets a private one)
  to run it: \"exec\": [\"~/bin\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: a directory on the user's PATH: the exec line, as doctor prints it"
	run Yw "$H/bin"
	like "$out" "to read it: \"read\": \\[\"~/bin\"\\]" "$who: control: the same directory off PATH: read"
	run Yw "$H/proj/new.txt"
	is "$rc:$out" "1:$H/proj/new.txt: none: your home: never granted by default (the agent gets a private one)
  to make it: \"write\": [\"~/proj\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: a file not yet made: write where it would be made"
	run Yw "$H/new.txt"
	is "$rc:$out" "1:$H/new.txt: none: your home: never granted by default (the agent gets a private one)
  nothing a policy says can grant it" "$who: ... directly in the home: nothing can"
	run Yw /usr/bin/corral-no-such-tool
	is "$rc:$out" "1:/usr/bin/corral-no-such-tool: read+exec: a system tree: /usr
  to make it: \"write\": [\"/usr/bin\"] in a policy file (corral run -p FILE; corral policy check FILE)" "$who: granted less than it needs: what it has, and the line for the rest"
	run Yw "$W/outside.sock"
	is "$rc:$out" "1:$W/outside.sock: none: a unix socket made outside the attempt: the agent connects only to the sockets it bound itself (in its home, tmp, workspace or a \"write\" grant)
  nothing a policy says can grant it" "$who: a socket made outside, in the workspace: never"
	A=$TMP/st-$who/corral/a0123456789/home/.codex/app-server-control
	run Yw "$A/app-server-control.sock"
	is "$rc:$out" "0:$A/app-server-control.sock: read-write: an attempt's private home, config, tmp or checkout: read-write to that attempt's agent only, removed afterwards (the sockets it binds there are its own)" \
	    "$who: codex's socket in an attempt's home: that agent's own"
	run Yw /dev/shm/corral-why-new-$who
	is "$rc:$out" "0:/dev/shm/corral-why-new-$who: read-write: /dev/shm: the shared memory and semaphores the agent creates are its own (the broker makes them; confine --own-shm)" \
	    "$who: a /dev/shm object not yet made: the agent's own once it makes it"
	echo outside > /dev/shm/corral-why-x-$who
	run Yw /dev/shm/corral-why-x-$who
	is "$rc:$out" "1:/dev/shm/corral-why-x-$who: none: /dev/shm: the shared memory of your other programs (the agent reaches only the objects it creates)
  to use it: \"write\": [\"/dev/shm\"] (every program's shared memory; not advised) in a policy file (corral run -p FILE; corral policy check FILE)" "$who: an object made outside: the write line, not advised"

	# each line, pasted into a policy, does what it says under corral run
	printf '{"exec": ["~/bin/mytool"], "write": ["~/proj", "/dev/shm"]}\n' > "$CFG/lines.json"
	[ $who = nobody ] && chown nobody "$CFG/lines.json"
	run Yw -p "$CFG/lines.json" "$H/bin/mytool" "$H/proj/new.txt" /dev/shm/corral-why-x-$who
	is "$rc" 0 "$who: with the lines why printed: each granted"
	mkdir -p "$TMP/st-$who" && [ $who = nobody ] && chown nobody "$TMP/st-$who"
	Rw() { (cd "$W" && $pre env -i HOME="$H" PATH=/usr/bin:/bin XDG_STATE_HOME="$TMP/st-$who" "$C" run --quiet "$@"); }
	MP='from multiprocessing import Pool
with Pool(2) as p: print("pool", sum(p.map(abs, [-1, -2, 3])))'
	run Rw -p "$CFG/lines.json" -- sh -c "'$H/bin/mytool' && echo made > '$H/proj/new.txt' && cat /dev/shm/corral-why-x-$who"
	is "$rc:$out" "0:mytool ran
outside" "$who: ... the tool runs, the file is made, the object made outside is read"
	is "$(cat "$H/proj/new.txt" 2>/dev/null)" made "$who: ... the file is there"
	rm -f "$H/proj/new.txt"
	run Rw -- sh -c "'$H/bin/mytool'"
	is "$rc" 126 "$who: control: without the exec line the tool does not run"
	run Rw -- sh -c "echo made > '$H/proj/new.txt'"
	status_ok "$([ $rc -ne 0 ] && [ ! -e "$H/proj/new.txt" ]; echo $?)" "$who: control: without the write line the file is not made"
	run Rw -- cat /dev/shm/corral-why-x-$who
	is "$rc" 1 "$who: control: without the /dev/shm line the object made outside is refused"
	run Rw -- python3 -c "$MP"
	is "$rc:$out" "0:pool 6" "$who: ... while multiprocessing, the agent's own shared memory, works without it"
	rm -f /dev/shm/corral-why-x-$who

	# policy grants: the line why printed, in a policy, grants it
	printf '{"read": ["~/.ssh/id_ed25519"], "exec": ["%s"], "write": ["~/proj/data"]}\n' "$TMP/opt" > "$CFG/p.json"
	[ $who = nobody ] && chown nobody "$CFG/p.json"
	run Yw -p "$CFG/p.json" "$H/.ssh/id_ed25519" "$TMP/opt/tool" "$H/proj/data/x"
	is "$rc" 0 "$who: with the policy's lines: granted"
	like "$out" "^$H/.ssh/id_ed25519: read: \"read\" in the policy: $H/.ssh/id_ed25519$" "$who: policy read"
	like "$out" "$TMP/opt/tool: read\\+exec: \"exec\" in the policy: $TMP/opt$" "$who: policy exec"
	like "$out" "$H/proj/data/x: read-write: \"write\" in the policy: $H/proj/data$" "$who: policy write"

	# network modes
	run Yw --connect 198.51.100.10:443
	is "$rc:$out" "0:198.51.100.10:443: allowed: \"network\": \"open\"" "$who: network open"
	run Yw --connect 127.0.0.1:5432
	is "$rc:$out" "1:127.0.0.1:5432: denied: loopback: only the agent's own servers and \"allow_loopback\" ports
  to grant it: \"network\": {\"allow_loopback\": [5432]} in a policy file (corral run -p FILE; corral policy check FILE)" \
	    "$who: network open: an outside loopback service is not"
	run Yw --connect 169.254.169.254:80
	like "$rc:$out" "^1:169.254.169.254:80: denied: cloud metadata: never reachable" "$who: network open: metadata never"
	printf '{"network": "none"}\n' > "$CFG/none.json"
	printf '{"network": {"connect": [443]}}\n' > "$CFG/ports.json"
	[ $who = nobody ] && chown nobody "$CFG/none.json" "$CFG/ports.json"
	run Yw -p "$CFG/none.json" --connect example.org:443
	is "$rc:$out" "1:example.org:443: denied: \"network\": \"none\": no socket but unix ones
  to grant it: \"network\": {\"connect\": [443]} in a policy file (corral run -p FILE; corral policy check FILE)" "$who: network none"
	run Yw -p "$CFG/ports.json" --connect example.org:443
	is "$rc:$out" "0:example.org:443: allowed: \"network\": {\"connect\": [...]} lists the port" "$who: a listed port"
	run Yw -p "$CFG/ports.json" --connect '[::1]:22'
	is "$rc" 1 "$who: an unlisted port: denied"
	like "$out" "^\\[::1\\]:22: denied: " "$who: a v6 destination named"
done

# a toolchain in the home: its PATH directory on PATH grants its tree
mkdir -p "$H/.cargo/bin" "$H/.rustup/toolchains/stable/bin"
printf '#!/bin/sh\n' > "$H/.cargo/bin/cargo"; chmod 0755 "$H/.cargo/bin/cargo"
echo 'token = "x"' > "$H/.cargo/credentials.toml"
YP() { (cd "$W" && env -i HOME="$H" PATH="$H/.cargo/bin:/usr/bin:/bin" XDG_STATE_HOME="$TMP/st" "$C" why "$@"); }
run YP "$H/.rustup/toolchains/stable/bin"
is "$rc" 0 "a toolchain's tree, its bin on PATH: granted"
like "$out" "read\\+exec: toolchain rustup \\(~/.cargo/bin holds the proxies" "the toolchain entry and its reason are named"
run YP "$H/.cargo/credentials.toml"
is "$rc" 1 "a toolchain's credentials: denied"
like "$out" "none: a credential in your home: nothing grants it by default" "the credential rule is named"
run Y "$H/.rustup/toolchains/stable/bin"
is "$rc" 1 "control: the same tree with its bin off PATH: denied"
like "$out" "none: your home: never granted by default" "control: the home rule"

# usage
run Y
is "$rc:$err" "2:corral: usage: no PATH given
corral: hint: corral why --help" "no PATH: usage"
run Y --connect nope
is "$rc" 2 "a bad destination: usage"
like "$err" "^corral: usage: --connect nope: want HOST:PORT" "a bad destination: named"
run Y --connect a:1 /x
is "$rc" 2 "--connect and a PATH: usage"
run Y --help
like "$out" "^usage: corral why \\[-p POLICY\\]" "--help"
done_testing
