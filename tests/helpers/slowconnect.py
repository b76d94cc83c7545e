#!/usr/bin/env python3
"""slowconnect.py UNIXPATH PORT GOFILE: inside confine, a connect the broker
must wait on does not hold up another.

The unix listener at UNIXPATH (outside, backlog 0) accepts nothing until
GOFILE exists: the first connect fills its backlog, the second blocks in
the broker, which connects the caller's socket itself. While it waits, a
TCP connect to 127.0.0.1:PORT is made. Prints "s3:ok s2:pending" when the
TCP connect was answered while the second was still blocked, then writes
GOFILE and prints the second's result once the listener accepts."""
import os, platform, socket, sys, threading, time

path, port, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
NR_CONNECT = {"x86_64": "42", "aarch64": "203"}[platform.machine()]
s1 = socket.socket(socket.AF_UNIX)
s1.connect(path)
res, tid = {}, {}


def second():
    tid["id"] = threading.get_native_id()
    s2 = socket.socket(socket.AF_UNIX)
    try:
        s2.connect(path)
        res["s2"] = "ok"
    except OSError as e:
        res["s2"] = "error:%d" % e.errno


t = threading.Thread(target=second, daemon=True)
t.start()
# until the second thread sits in connect (a bound on waiting, not on speed)
for _ in range(600):
    if "id" in tid:
        try:
            with open("/proc/self/task/%d/syscall" % tid["id"]) as f:
                if f.read().split()[0] == NR_CONNECT:
                    break
        except OSError:
            pass
    time.sleep(0.05)
else:
    print("s2:never-blocked")
    sys.exit(1)


def third():
    s3 = socket.socket()
    try:
        s3.connect(("127.0.0.1", port))
        res["s3"] = "ok"
    except OSError as e:
        res["s3"] = "error:%d" % e.errno


# the TCP connect, in a thread: a broker that made it wait behind the
# blocked one fails this check rather than hanging it
t3 = threading.Thread(target=third, daemon=True)
t3.start()
t3.join(60)
print("s3:%s s2:%s" % (res.get("s3", "pending"), res.get("s2", "pending")), flush=True)
if "s3" not in res:
    os._exit(1)
open(go, "w").close()
t.join(60)
print("s2:%s" % res.get("s2", "pending"), flush=True)
