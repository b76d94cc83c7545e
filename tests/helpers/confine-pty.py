#!/usr/bin/python3
# confine-pty.py [WAIT SEND]... -- CMD...: run CMD on a fresh pty (its
# controlling terminal); each time the output so far contains WAIT, type
# SEND and a newline, in order. Prints everything CMD wrote, exits with its
# status. A 60 s safety net kills CMD if it never ends (not an assertion).
import os, pty, select, sys, time

a = sys.argv[1:]
i = a.index('--')
pairs = list(zip(a[0:i:2], a[1:i:2]))
cmd = a[i + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execve(cmd[0], cmd, dict(os.environ))
out = b''
seen = 0
deadline = time.monotonic() + 60
while True:
    if pairs and pairs[0][0].encode() in out[seen:]:
        seen = out.index(pairs[0][0].encode(), seen) + len(pairs[0][0])
        os.write(fd, pairs[0][1].encode() + b'\n')
        pairs.pop(0)
        continue
    left = deadline - time.monotonic()
    if left <= 0:
        os.kill(pid, 9)
        break
    r, _, _ = select.select([fd], [], [], left)
    if not r:
        continue
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode('utf-8', 'replace').replace('\r', ''))
sys.exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
