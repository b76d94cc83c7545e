#!/usr/bin/env python3
"""corral-pty.py MODE CORRAL HOME WS: drive corral run on a real pty.
MODE int:  an interactive bash; ^C interrupts its foreground job, not the
           shell (the agent's process group holds the terminal); exit 5.
MODE stop: ^Z stops the agent and corral with it (as a job); SIGCONT
           resumes both and the agent's status comes back.
Prints what the terminal showed, then "status N"."""
import os, pty, select, signal, sys, time

mode, corral, home, ws = sys.argv[1:5]
env = {"HOME": home, "PATH": "/usr/bin:/bin", "TERM": "dumb"}
if mode == "int":
    argv = [corral, "run", "--", "/bin/bash", "--norc", "--noprofile", "-i"]
else:
    argv = [corral, "run", "--", "/bin/sh", "-c", "echo ready; read x; echo resumed-$x; exit 4"]
os.chdir(ws)
pid, fd = pty.fork()
if pid == 0:
    os.execve(corral, argv, env)
out = b""

def until(pat, limit=60):
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

if mode == "int":
    until(b"bash-")
    os.write(fd, b"echo marker-$((40+2)); sleep 600\n")
    until(b"marker-42\r\n")
    time.sleep(0.5)
    os.write(fd, b"\x03")
    # the shell survived and sleep 600 was cut short (else no answer in time)
    os.write(fd, b"echo alive-$((1+1))\n")
    until(b"alive-2\r\n")
    os.write(fd, b"exit 5\n")
    until(b"exit")
    _, st = os.waitpid(pid, 0)
else:
    until(b"ready")
    os.write(fd, b"\x1a")
    _, st = os.waitpid(pid, os.WUNTRACED)
    print("corral stopped:", os.WIFSTOPPED(st))
    os.kill(pid, signal.SIGCONT)
    os.write(fd, b"go\n")
    until(b"resumed-go")
    _, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
print("\nstatus", os.waitstatus_to_exitcode(st))
