#!/usr/bin/python3
# pty-open.py WHAT [PATH]: one way of getting a pty, one line of outcome.
#   openpty   os.openpty() (glibc openpty: /dev/ptmx, then /dev/pts/N by path)
#   peer      /dev/ptmx, then its slave through TIOCGPTPEER (no path)
#   open PATH open an existing terminal by its path
# Prints "ok ..." or the errno's name; exits 0 either way (the outcome is
# the line), 2 on usage errors.
import errno, fcntl, os, struct, sys

TIOCSPTLCK, TIOCGPTPEER = 0x40045431, 0x5441


def outcome(f):
    try:
        print("ok", f())
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))


def openpty():
    m, s = os.openpty()
    os.write(s, b"x")
    return os.read(m, 1).decode()


def peer():
    m = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    fcntl.ioctl(m, TIOCSPTLCK, struct.pack("i", 0))
    s = fcntl.ioctl(m, TIOCGPTPEER, os.O_RDWR | os.O_NOCTTY)
    os.write(s, b"x")
    return os.read(m, 1).decode()


if len(sys.argv) == 2 and sys.argv[1] == "openpty":
    outcome(openpty)
elif len(sys.argv) == 2 and sys.argv[1] == "peer":
    outcome(peer)
elif len(sys.argv) == 3 and sys.argv[1] == "open":
    outcome(lambda: os.close(os.open(sys.argv[2], os.O_RDWR | os.O_NOCTTY)) or "opened")
else:
    sys.exit("usage: pty-open.py openpty | peer | open PATH")
