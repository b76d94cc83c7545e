#!/bin/sh
# contrib/: the CI and Kubernetes recipes parse as YAML (Debian's
# python3-yaml) and ask for no privilege: the Kubernetes Job is not
# privileged, adds no capability (drops all), forbids privilege escalation,
# keeps the runtime's default seccomp profile, has a read-only root with the
# state directory on an emptyDir; the CI jobs keep secrets out of argv and
# scripts and give the job's token no write access. Each assertion is
# checked against a copy with the setting broken (the control).
. "$CORRAL_TOP/tests/lib/tap.sh"
PY=/usr/bin/python3	# Debian's, with python3-yaml (mk/deps)
CHK=$TMP/check.py
cat > "$CHK" <<'EOP'
import sys, yaml

def fail(msg):
    print(msg)
    sys.exit(1)

def k8s(d):
    if d.get("kind") != "Job" or d.get("apiVersion") != "batch/v1":
        fail("not a batch/v1 Job")
    pod = d["spec"]["template"]["spec"]
    if pod.get("automountServiceAccountToken") is not False:
        fail("service account token mounted")
    for k in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(k):
            fail(k + " set")
    psc = pod.get("securityContext") or {}
    if psc.get("runAsNonRoot") is not True:
        fail("pod: runAsNonRoot not true")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    for v in vols.values():
        if "hostPath" in v:
            fail("hostPath volume " + v["name"])
    cs = pod.get("initContainers", []) + pod["containers"]
    for c in cs:
        sc = c.get("securityContext") or {}
        n = c["name"]
        if sc.get("privileged") not in (None, False):
            fail(n + ": privileged")
        caps = sc.get("capabilities") or {}
        if caps.get("add"):
            fail(n + ": capabilities added")
        if "ALL" not in (caps.get("drop") or []):
            fail(n + ": capabilities not all dropped")
        if sc.get("allowPrivilegeEscalation") is not False:
            fail(n + ": allowPrivilegeEscalation not false")
        if sc.get("readOnlyRootFilesystem") is not True:
            fail(n + ": root file system not read-only")
        prof = (sc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
        if prof != "RuntimeDefault":
            fail(n + ": seccomp profile " + str(prof))
    agent = [c for c in pod["containers"] if "corral run" in " ".join(c.get("command", []))]
    if len(agent) != 1:
        fail("no container runs corral run")
    env = {e["name"]: e.get("value") for e in agent[0].get("env", [])}
    state = env.get("XDG_STATE_HOME")
    mounts = {m["mountPath"]: m["name"] for m in agent[0].get("volumeMounts", [])}
    if state not in mounts or "emptyDir" not in vols.get(mounts[state], {}):
        fail("the state directory is not on an emptyDir")
    if "corral doctor" not in " ".join(agent[0]["command"]):
        fail("no corral doctor")

def scripts(lines, secret):
    text = "\n".join(lines)
    if "corral doctor" not in text or "corral run" not in text:
        fail("no corral doctor and corral run")
    if "${{ secrets." in text:
        fail("a secret interpolated into a script")
    # the secret is used only by the shell's printf, into a file, under umask 077
    for l in text.split("\n"):
        if "$" + secret in l and not (l.strip().startswith("printf ") and "> " in l):
            fail("the secret on a command line: " + l.strip())
    if "umask 077" not in text:
        fail("the secret file is not written under umask 077")
    if "--privileged" in text or "docker run" in text:
        fail("a privileged or nested container")

def github(d):
    on = d.get("on", d.get(True))	# YAML 1.1 reads the key on as true
    if not on:
        fail("no trigger")
    if d.get("permissions") != {"contents": "read"}:
        fail("the token may do more than read: " + str(d.get("permissions")))
    lines = []
    for job in d["jobs"].values():
        for st in job["steps"]:
            if st.get("uses", "").startswith("actions/checkout") and \
                    (st.get("with") or {}).get("persist-credentials") is not False:
                fail("checkout leaves the token in .git/config")
            if "run" in st:
                lines.append(st["run"])
    scripts(lines, "ANTHROPIC_API_KEY")

def gitlab(d):
    jobs = [j for k, j in d.items() if isinstance(j, dict) and "script" in j]
    if len(jobs) != 1:
        fail("not one job")
    j = jobs[0]
    if "services" in j:
        fail("services (docker:dind?)")
    scripts(j["script"] + j.get("after_script", []), "ANTHROPIC_API_KEY")

kind, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    d = yaml.safe_load(f)
{"k8s": k8s, "github": github, "gitlab": gitlab}[kind](d)
print("ok")
EOP
C=$CORRAL_TOP/contrib
run $PY -c 'import yaml'
is "$rc:$err" "0:" "Debian's python3 has yaml (python3-yaml)"
for x in "k8s kubernetes-job.yaml" "github github-actions.yml" "gitlab gitlab-ci.yml"; do
	set -- $x
	run $PY "$CHK" "$1" "$C/$2"
	is "$rc:$out:$err" "0:ok:" "contrib/$2: parses, and every security setting holds"
done

# controls: each setting broken in a copy is caught
broken() {	# broken KIND FILE SED-EXPR WANT DESC
	sed "$3" "$C/$2" > "$TMP/$2"
	run $PY "$CHK" "$1" "$TMP/$2"
	is "$rc" 1 "control: $5: refused"
	like "$out" "$4" "control: $5: named"
}
broken k8s kubernetes-job.yaml 's/privileged: false/privileged: true/' "prepare: privileged" "a privileged container"
broken k8s kubernetes-job.yaml 's/drop: \["ALL"\]/add: ["NET_ADMIN"]/' "capabilities added" "an added capability"
broken k8s kubernetes-job.yaml 's/allowPrivilegeEscalation: false/allowPrivilegeEscalation: true/' "allowPrivilegeEscalation" "privilege escalation allowed"
broken k8s kubernetes-job.yaml 's/type: RuntimeDefault/type: Unconfined/' "seccomp profile Unconfined" "no seccomp profile"
broken k8s kubernetes-job.yaml 's/readOnlyRootFilesystem: true/readOnlyRootFilesystem: false/' "not read-only" "a writable root"
broken k8s kubernetes-job.yaml 's/{name: state, emptyDir: {}}/{name: state, hostPath: {path: \/var\/corral}}/' "hostPath volume state" "the state on the host"
broken k8s kubernetes-job.yaml 's/automountServiceAccountToken: false/automountServiceAccountToken: true/' "token mounted" "a service account token"
broken github github-actions.yml 's/  contents: read/  contents: write/' "may do more than read" "a token that writes"
broken github github-actions.yml 's/claude -p "\$TASK"/claude -p "$TASK" --key "$ANTHROPIC_API_KEY"/' "secret on a command line" "the key in argv"
broken github github-actions.yml 's/persist-credentials: false   #.*/persist-credentials: true/' "token in .git/config" "the token left in .git/config"
broken gitlab gitlab-ci.yml 's/      umask 077/      true/' "umask 077" "the secret file readable by others"
broken gitlab gitlab-ci.yml 's/    - corral doctor/    - echo no doctor/' "no corral doctor" "no doctor"

# the README points at them
for f in github-actions.yml gitlab-ci.yml kubernetes-job.yaml; do
	like "$(sed -n '/^## In containers and CI/,/^## /p' "$CORRAL_TOP/README.md")" "contrib/$f" "README's \"In containers and CI\" names contrib/$f"
done
done_testing
