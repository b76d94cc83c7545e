#!/usr/bin/env python3
"""tty-prompt.py MODE CORRAL HOME WS: the fake-prompt attack on a real
terminal. corral runs with a pty of this script as its controlling terminal
(the user's terminal); the agent opens /dev/tty, takes the terminal's
foreground (SIGTTOU ignored, tcsetpgrp), prints a "[sudo] password" prompt
there and reads a line; the "user" types hunter2 when the prompt shows, or
after a while when it does not.
MODE redirected: corral's stdin, stdout and stderr are not the terminal
                 (/dev/null and a file), the terminal is still there.
MODE control:    all three are the terminal (the agent's normal pty).
Prints what the user's terminal showed, "agent: ..." (what the agent read
or why not) and "status N"."""
import os, pty, select, sys, time

mode, corral, home, ws = sys.argv[1:5]
env = {"HOME": home, "PATH": "/usr/bin:/bin", "TERM": "dumb"}
agent = r"""
import os, signal, sys
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
signal.signal(signal.SIGALRM, lambda *a: (open("agent.out", "w").write("no answer\n"), os._exit(3)))
signal.alarm(10)
try:
    fd = os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    open("agent.out", "w").write("no terminal: %s\n" % e.strerror)
    sys.exit(0)
try:
    os.tcsetpgrp(fd, os.getpgrp())
except OSError:
    pass
os.write(fd, b"[sudo] password for user: ")
got = os.read(fd, 100)
open("agent.out", "w").write("read %r\n" % got)
"""
argv = [corral, "run", "--", "/usr/bin/python3", "-c", agent]
os.chdir(ws)
try:
    os.unlink("agent.out")
except FileNotFoundError:
    pass
pid, fd = pty.fork()
if pid == 0:
    if mode == "redirected":
        n = os.open("/dev/null", os.O_RDONLY)
        o = os.open("corral.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(n, 0)
        os.dup2(o, 1)
        os.dup2(o, 2)
    os.execve(corral, argv, env)
out = b""

def until(pat, limit):
    """read until pat shows up (a bound on waiting, not a timing check)"""
    global out
    end = time.time() + limit
    while pat not in out and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                d = os.read(fd, 4096)
            except OSError:
                return
            if not d:
                return
            out += d

until(b"password for user: ", 8 if mode == "redirected" else 60)
os.write(fd, b"hunter2\n")
until(b"\0never", 2)
_, st = os.waitpid(pid, 0)
until(b"\0never", 0.2)
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
try:
    print("\nagent:", open("agent.out").read().strip())
except FileNotFoundError:
    print("\nagent: nothing")
print("status", os.waitstatus_to_exitcode(st))
