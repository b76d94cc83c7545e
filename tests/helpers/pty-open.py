#!/usr/bin/python3
# pty-open.py WHAT [PATH]: one way of getting a pty, one line of outcome.
#   openpty   os.openpty() (glibc openpty: /dev/ptmx, then TIOCGPTPEER)
#   peer      /dev/ptmx, then its slave through TIOCGPTPEER (no path)
#   byname    /dev/ptmx, then /dev/pts/N by name, O_RDWR|O_NOCTTY, as
#             musl's openpty and Go's creack/pty do
#   forkpty   pty.fork(): the child's controlling terminal (TIOCSCTTY) is
#             the new slave, /dev/tty opens it; "ok pts tty"
#   open PATH open an existing terminal by its path
#   steal PATH  the same while holding a master of its own (another pts)
#   notmaster   TIOCGPTPEER on a descriptor that is no master (/dev/null)
# Prints "ok ..." or the errno's name; exits 0 either way (the outcome is
# the line), 2 on usage errors.
import errno, fcntl, os, pty, struct, sys

TIOCSPTLCK, TIOCGPTN, TIOCGPTPEER = 0x40045431, 0x80045430, 0x5441


def outcome(f):
    try:
        print("ok", f())
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))


def master():
    m = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    fcntl.ioctl(m, TIOCSPTLCK, struct.pack("i", 0))
    return m


def roundtrip(m, s):
    os.write(s, b"x")
    return os.read(m, 1).decode()


def openpty():
    return roundtrip(*os.openpty())


def peer():
    m = master()
    return roundtrip(m, fcntl.ioctl(m, TIOCGPTPEER, os.O_RDWR | os.O_NOCTTY))


def byname():
    m = master()
    n = struct.unpack("I", fcntl.ioctl(m, TIOCGPTN, b"\0" * 4))[0]
    return roundtrip(m, os.open("/dev/pts/%d" % n, os.O_RDWR | os.O_NOCTTY))


def forkpty():
    pid, m = pty.fork()
    if pid == 0:
        try:
            os.close(os.open("/dev/tty", os.O_RDWR))
            os.write(1, b"pts tty\n" if os.ttyname(0).startswith("/dev/pts/") else b"no pts\n")
        except OSError as e:
            os.write(1, (errno.errorcode.get(e.errno, "?") + "\n").encode())
        os._exit(0)
    out = b""
    while True:
        try:
            b = os.read(m, 100)
        except OSError:
            break
        if not b:
            break
        out += b
    os.waitpid(pid, 0)
    line = out.decode().strip()
    if line != "pts tty":
        raise OSError(errno.EIO, line)
    return line


def steal(path):
    m = master()  # noqa: F841 (held while the other is asked)
    os.close(os.open(path, os.O_RDWR | os.O_NOCTTY))
    return "opened"


def notmaster():
    return fcntl.ioctl(os.open("/dev/null", os.O_RDWR), TIOCGPTPEER, os.O_RDWR)


a = sys.argv[1:]
if len(a) == 1 and a[0] in ("openpty", "peer", "byname", "forkpty", "notmaster"):
    outcome(globals()[a[0]])
elif len(a) == 2 and a[0] == "open":
    outcome(lambda: os.close(os.open(a[1], os.O_RDWR | os.O_NOCTTY)) or "opened")
elif len(a) == 2 and a[0] == "steal":
    outcome(lambda: steal(a[1]))
else:
    sys.exit("usage: pty-open.py openpty | peer | byname | forkpty | notmaster | open PATH | steal PATH")
