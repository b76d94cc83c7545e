#!/bin/sh
# corral unchanged in containers (issue 30): the images of mk/image run
# under podman (runtime runc) with its default seccomp profile, --network
# none (the container's network namespace is podman's, made for this run:
# nothing leaves the machine). FROM scratch: corral run works, migrate_pages
# and move_pages are closed from above, /usr and /sbin left out. Debian, as
# root and as the image's user "agent": the agent's commit comes back as a
# corral/ branch, the checkout untouched; an outside loopback service and
# the metadata address are refused inside and not outside (the controls);
# doctor's tier. The images are built once and cached (build/image).
. "$CORRAL_TOP/tests/lib/tap.sh"
if ! is_root; then
	echo "1..0 # SKIP needs root: podman's containers here are root's (rootless podman needs subuid ranges this test does not set up)"
	exit 0
fi
"$CORRAL_TOP/mk/deps" --containers >"$TMP/deps" 2>&1 || {
	echo "1..0 # SKIP podman cannot be installed here (mk/deps --containers: $(tail -1 "$TMP/deps"))"; exit 0; }
PODMAN="podman --runtime runc"
if ! $PODMAN info >"$TMP/info" 2>&1; then
	echo "1..0 # SKIP podman cannot run here: $(grep -m1 -i error "$TMP/info")"
	exit 0
fi
# nofile and nproc within this session's limits (podman's defaults may exceed
# what a runner without CAP_SYS_RESOURCE may set)
UL="--ulimit nofile=8192:8192 --ulimit nproc=8192:8192"
RUN="$PODMAN run --rm -i --network none $UL"
run env CORRAL_BIN="$CORRAL_BIN" "$CORRAL_TOP/mk/image" scratch debian
is "$rc" 0 "mk/image builds both images"
S=$(printf '%s\n' "$out" | grep corral-scratch) D=$(printf '%s\n' "$out" | grep corral-debian)
like "$S:$D" "^localhost/corral-scratch:[0-9a-f]{16}:localhost/corral-debian:[0-9a-f]{16}$" "... and names them"
[ -n "$err" ] && diag "$err"
ok_oci=$(python3 -c 'import json,sys,tarfile
t = tarfile.open(sys.argv[1]); i = json.load(t.extractfile("index.json"))
print(i["manifests"][0]["mediaType"])' "$CORRAL_TOP/build/image/corral-scratch.oci.tar" 2>&1)
is "$ok_oci" "application/vnd.oci.image.manifest.v1+json" "build/image/corral-scratch.oci.tar is an OCI archive"

# the default seccomp profile is in force in the container
run $RUN "$S" sh -c 'grep ^Seccomp: /proc/self/status; ls -d /usr /sbin 2>&1 | head -1'
like "$out" "^Seccomp:	2" "scratch: podman's seccomp filter is in force"
like "$out" "/usr: No such file or directory" "scratch: no /usr"

# FROM scratch: corral run -- sh -c ...
run $RUN -w /root "$S" sh -c 'mkdir w && cd w && corral run -- sh -c "echo inside \$(id -u); ls /root 2>&1 | head -1"; echo "rc=$?"'
is "$(printf '%s\n' "$out" | head -1)" "inside 0" "scratch: corral run -- sh -c ... runs"
like "$out" "ls: /root: Permission denied|ls: can't open '/root': Permission denied" "scratch: ... inside the boundary (the real home unreadable)"
like "$out" "rc=0" "scratch: ... exit 0"
unlike "$err" "fatal" "scratch: no refusal"
run $RUN "$S" sh -c '/libexec/corral/probe -r full -v; echo "rc=$?"; cd /tmp && corral explain -- true'
like "$out" "^platform=linux tier=full" "scratch: probe proves full in the container"
like "$out" "^rc=0$" "scratch: probe -r full: exit 0"
like "$out" "check migrate-pages: closed \\[tier full\\]" "scratch: migrate-pages closed from above"
like "$out" "check move-pages: closed \\[tier full\\]" "scratch: move-pages closed from above"
like "$out" "evidence: closed from above: the caller's seccomp filter \\(Seccomp: 2, Seccomp_filters: [0-9]+\\) refuses them outside the boundary too: migrate_pages\\(parent, node 0 to none\\): EPERM" "scratch: ... the evidence"
is "$(printf '%s\n' "$out" | grep -c ': unproven \[')" 0 "scratch: nothing unproven"
like "$out" "^# left out: /usr, a system tree of the default \"exec\": not on this machine$" "scratch: explain names /usr left out"
diag "scratch: $(printf '%s\n' "$out" | grep ': closed \[' | tr '\n' ' ')"

# Debian, as root and as the image's unprivileged user
for who in root agent; do
	run $RUN --user $who "$D" sh -s < "$CORRAL_TOP/tests/helpers/container-debian.sh"
	v() { printf '%s\n' "$out" | sed -n "s/^$1=//p"; }
	is "$(v uid)" "$([ $who = root ] && echo 0 || echo 1000)" "debian, $who: runs as uid $(v uid)"
	is "$(v run_rc)" 0 "debian, $who: corral run in a git repository: exit 0"
	like "$(v err)" "corral: git: branch corral/[0-9a-f]{8}: 1 commit" "debian, $who: corral names the branch"
	like "$(v branch)" "^corral/[0-9a-f]{8}$" "debian, $who: the agent's commit came back as a corral/ branch"
	is "$(v branch_log)" "agent: work|init|" "debian, $who: ... holding the agent's commit on the user's"
	is "$(v branch_b)" "new" "debian, $who: ... with its file"
	is "$(v head_same):$(v checkout)" "yes:one ||" "debian, $who: the user's HEAD, files and index untouched"
	is "$(v loop_out)" "connected" "debian, $who: control: the loopback service is reachable outside corral"
	is "$(v loop_in)" 13 "debian, $who: ... refused inside (EACCES: the broker works in a container)"
	like "$(v meta_out)" "^(101|113)$" "debian, $who: control: outside, the metadata address gets the kernel's answer (no route)"
	is "$(v meta_in)" 13 "debian, $who: ... inside, corral's refusal (EACCES)"
	is "$(v doctor)" "platform=linux tier=full" "debian, $who: doctor's tier"
	is "$(v closed)" "check migrate-pages,check move-pages," "debian, $who: probe: migrate-pages and move-pages closed from above"
	diag "debian, $who: doctor: $(v doctor)"
done

# contrib/kubernetes-job.yaml's settings, as podman flags: uid 1000, every
# capability dropped, no privilege escalation, the default seccomp profile,
# a read-only root, the state directory, home, workspace and /tmp on tmpfs
# (its emptyDirs)
run $RUN --user 1000:1000 --cap-drop=ALL --security-opt no-new-privileges --read-only \
    --tmpfs /state:U,mode=0700 --tmpfs /home/agent:U,mode=0700 --tmpfs /work:U --tmpfs /tmp:mode=1777 \
    -e HOME=/home/agent -e XDG_STATE_HOME=/state -e TMPDIR=/tmp -w /work "$D" sh -c '
	grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status | tr "\t" " "
	touch /usr/x 2>/dev/null || echo "root read-only"
	corral doctor 2>/dev/null | grep -m1 "^platform="
	git init -q -b main repo && cd repo && git -c user.name=u -c user.email=u@x commit -q --allow-empty -m init &&
	printf "[user]\n\tname = A\n\temail = a@x\n" > "$HOME/.gitconfig" &&
	corral run -- sh -c "echo x > f && git add f && git commit -qm agent && echo inside" &&
	git for-each-ref --format="%(refname:short)" "refs/heads/corral/*"; ls /state/corral >/dev/null && echo state'
is "$(printf '%s\n' "$out" | head -3 | tr '\n' '|')" "CapEff: 0000000000000000|NoNewPrivs: 1|Seccomp: 2|" "kubernetes settings: no capability, no_new_privs, seccomp"
like "$out" "root read-only" "kubernetes settings: the root is read-only"
like "$out" "platform=linux tier=full" "kubernetes settings: doctor proves full"
like "$out" "^inside$" "kubernetes settings: corral run works"
like "$out" "corral/[0-9a-f]{8}" "kubernetes settings: the agent's commit came back as a corral/ branch"
like "$out" "^state$" "kubernetes settings: the state directory on its tmpfs"
done_testing
