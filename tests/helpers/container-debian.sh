# container-debian.sh: run by sh inside the corral-debian image (podman,
# --network none), as root or as the image's user "agent"; prints key=value
# lines that tests/cli/containers.t checks. Everything it starts ends here.
set -u
W=$(mktemp -d "${TMPDIR:-/tmp}/w.XXXXXX")
cd "$W" || exit 1
export GIT_CONFIG_NOSYSTEM=1
git init -q -b main repo && cd repo || exit 1
git config user.name User && git config user.email user@example.com
echo one > a && git add a && git commit -qm init
head0=$(git rev-parse HEAD)
printf '[user]\n\tname = Agent\n\temail = agent@example.com\n' > "$HOME/.gitconfig"
corral run -- sh -c 'echo two >> a && echo new > b && git add a b && git commit -qm "agent: work"' >/dev/null 2>"$W/err"
echo "run_rc=$?"
br=$(git for-each-ref --format='%(refname:short)' 'refs/heads/corral/*' | head -1)
echo "branch=$br"
echo "branch_log=$(git log --format=%s "$br" 2>/dev/null | tr '\n' '|')"
echo "branch_b=$(git show "$br:b" 2>/dev/null)"
echo "head_same=$([ "$(git rev-parse HEAD)" = "$head0" ] && echo yes)"
echo "checkout=$(cat a | tr '\n' ' ')|$([ -e b ] && echo b)|$(git status --porcelain | tr '\n' ' ')"

# an outside loopback service (outside the boundary, in this container) and
# the metadata address: each tried outside corral (the control) and inside
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
sys.stdout.close()
while True:
    c, _ = s.accept(); c.close()
' > "$W/port" &
srv=$!
i=0; while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
port=$(cat "$W/port")
cat > "$W/try.py" <<'EOP'
import socket, sys
s = socket.socket(); s.settimeout(3)
try:
    s.connect((sys.argv[1], int(sys.argv[2]))); print("connected")
except OSError as e:
    print(e.errno)
EOP
mkdir "$W/net" && cd "$W/net" && cp "$W/try.py" try.py
echo "loop_out=$(python3 try.py 127.0.0.1 "$port")"
echo "loop_in=$(corral run -- python3 try.py 127.0.0.1 "$port" 2>/dev/null)"
echo "meta_out=$(python3 try.py 169.254.169.254 80)"
echo "meta_in=$(corral run -- python3 try.py 169.254.169.254 80 2>/dev/null)"
kill "$srv"; wait "$srv" 2>/dev/null
echo "doctor=$(corral doctor 2>/dev/null | grep -m1 "^platform=")"
echo "closed=$(/usr/local/libexec/corral/probe -v 2>/dev/null | grep ': closed \[' | cut -d: -f1 | tr '\n' ',')"
echo "uid=$(id -u)"
echo "err=$(tr '\n' '|' < "$W/err")"
cd / && rm -rf "$W"
