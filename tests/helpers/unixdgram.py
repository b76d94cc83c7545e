#!/usr/bin/python3
# unixdgram.py OP ARG: unix datagrams from a socketpair(AF_UNIX,
# SOCK_DGRAM), which needs no socket(AF_UNIX); prints ok[:DETAIL] or the
# errno name.
#   serve PATH      (outside) bind a datagram socket at PATH (mode 0777),
#                   print ready, append each datagram and a newline to
#                   PATH.log
#   sendto PATH     sendto(PATH) from one end of the pair
#   sendmsg PATH    sendmsg with PATH as its address
#   abstract NAME   sendto the abstract name
#   pair            send() within the pair, then a descriptor over it
import errno, os, socket, sys


def name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else str(e)


def main(op, arg):
    if op == "serve":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(arg)
        os.chmod(arg, 0o777)
        print("ready", flush=True)
        while True:
            d = s.recv(256)
            with open(arg + ".log", "ab") as f:
                f.write(d + b"\n")
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    if op == "sendto":
        a.sendto(b"via-sendto", arg)
    elif op == "sendmsg":
        a.sendmsg([b"via-sendmsg"], [], 0, arg)
    elif op == "abstract":
        a.sendto(b"via-abstract", b"\0" + arg.encode())
    elif op == "pair":
        a.send(b"hi")
        got = b.recv(10)
        r, w = os.pipe()
        socket.send_fds(a, [b"f"], [w])
        _, fds, _, _ = socket.recv_fds(b, 10, 1)
        os.write(fds[0], b"p")
        return "ok:" + got.decode() + os.read(r, 1).decode()
    else:
        print("usage: unixdgram.py OP ARG", file=sys.stderr)
        sys.exit(2)
    return "ok"


try:
    print(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""))
except OSError as e:
    print(name(e))
