#!/usr/bin/python3
# unix-own.py WHAT ARG: pathname unix sockets, one line of outcome.
#   own PATH      bind PATH, listen; a child connects and sends a byte, the
#                 parent accepts it: "ok x" (PATH may be relative)
#   connect PATH  connect to PATH and read a byte: "ok B"
#   serve PATH    bind PATH, listen, print "ready", answer "s" to each
#                 connection until killed
# Prints "ok ..." or the errno's name; exits 0 either way (the outcome is
# the line), 2 on usage errors.
import errno, os, socket, sys


def outcome(f):
    try:
        print("ok", f(), flush=True)
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e)), flush=True)


def own(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(1)
    pid = os.fork()
    if pid == 0:
        try:
            c = socket.socket(socket.AF_UNIX)
            c.connect(path)
            c.send(b"x")
        finally:
            os._exit(0)
    a, _ = s.accept()
    b = a.recv(1)
    os.waitpid(pid, 0)
    if b != b"x":
        raise OSError(errno.ECONNREFUSED, "nothing came")
    return b.decode()


def connect(path):
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    return c.recv(1).decode()


def serve(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(8)
    print("ready", flush=True)
    while True:
        a, _ = s.accept()
        a.send(b"s")
        a.close()


a = sys.argv[1:]
if len(a) == 2 and a[0] == "own":
    outcome(lambda: own(a[1]))
elif len(a) == 2 and a[0] == "connect":
    outcome(lambda: connect(a[1]))
elif len(a) == 2 and a[0] == "serve":
    serve(a[1])
else:
    sys.exit("usage: unix-own.py own PATH | connect PATH | serve PATH")
