#!/usr/bin/python3
# ipnet OP ARG...: one network operation from inside (or outside) the
# boundary; prints "ok[:DETAIL]" or the errno name (socket:ERRNO when
# socket() itself failed). Exit 0 when it could try, 2 on usage.
#   tcp HOST PORT        connect, read one line the server sends
#   tcp-only HOST PORT   connect only
#   udp HOST PORT        sendto HOST:PORT
#   udpmsg HOST PORT     sendmsg with the address
#   own                  listen on 127.0.0.1:0, connect to it, talk
#   own6                 the same on [::]:0 through ::ffff:127.0.0.1
#   own-udp              bind 127.0.0.1:0 (UDP), sendto it, receive
#   send                 TCP to an own listener, then send()/write()/sendmsg
#                        without an address (none is trapped: they work)
#   tfo HOST PORT        sendto with MSG_FASTOPEN
#   tfo-connect HOST PORT  TCP_FASTOPEN_CONNECT, connect, send
#   mptcp HOST PORT      socket(IPPROTO_MPTCP)
#   fd-pass              sendmsg SCM_RIGHTS over a socketpair
#   via PORT HOST HPORT  CONNECT HOST:HPORT through the proxy on 127.0.0.1:PORT;
#                        "STATUS:first line after" (the tunnel's or the reason)
#   serve ADDR PORT...   (outside) TCP listeners answering "NAME\n" where
#                        NAME is ADDR; prints "ready" once all are bound
import errno, os, select, socket, sys

def name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else str(e)

def fam(h):
    return socket.AF_INET6 if ':' in h else socket.AF_INET

def mk(f, t, p=0):
    try:
        return socket.socket(f, t, p)
    except OSError as e:
        print('socket:' + name(e)); sys.exit(0)

def main(a):
    op = a[0]
    if op in ('tcp', 'tcp-only'):
        s = mk(fam(a[1]), socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect((a[1], int(a[2])))
        if op == 'tcp-only':
            return 'ok'
        return 'ok:' + s.makefile().readline().strip()
    if op in ('udp', 'udpmsg'):
        s = mk(fam(a[1]), socket.SOCK_DGRAM)
        if op == 'udp':
            s.sendto(b'x', (a[1], int(a[2])))
        else:
            s.sendmsg([b'x'], [], 0, (a[1], int(a[2])))
        return 'ok'
    if op in ('own', 'own6'):
        l = mk(socket.AF_INET if op == 'own' else socket.AF_INET6, socket.SOCK_STREAM)
        l.bind(('127.0.0.1' if op == 'own' else '::', 0))
        l.listen(4)
        port = l.getsockname()[1]
        c = mk(fam(a[0]) if False else (socket.AF_INET if op == 'own' else socket.AF_INET6), socket.SOCK_STREAM)
        c.connect(('127.0.0.1' if op == 'own' else '::ffff:127.0.0.1', port))
        s, _ = l.accept()
        s.sendall(b'hi\n')
        return 'ok:' + c.makefile().readline().strip()
    if op == 'own-udp':
        r = mk(socket.AF_INET, socket.SOCK_DGRAM)
        r.bind(('127.0.0.1', 0))
        s = mk(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b'hi', r.getsockname())
        r.settimeout(5)
        return 'ok:' + r.recv(10).decode()
    if op == 'send':
        l = mk(socket.AF_INET, socket.SOCK_STREAM)
        l.bind(('127.0.0.1', 0)); l.listen(1)
        c = mk(socket.AF_INET, socket.SOCK_STREAM)
        c.connect(l.getsockname())
        s, _ = l.accept()
        c.send(b'a'); os.write(c.fileno(), b'b'); c.sendmsg([b'c']); c.sendto(b'd', 0, None) if False else None
        got = b''
        while len(got) < 3:
            got += s.recv(10)
        return 'ok:' + got.decode()
    if op == 'tfo':
        s = mk(fam(a[1]), socket.SOCK_STREAM)
        s.sendto(b'x', 0x20000000, (a[1], int(a[2])))
        return 'ok'
    if op == 'tfo-connect':
        s = mk(fam(a[1]), socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_TCP, 30, 1)
        s.settimeout(10)
        s.connect((a[1], int(a[2])))
        s.send(b'x')
        return 'ok:' + s.makefile().readline().strip()
    if op == 'mptcp':
        s = mk(fam(a[1]), socket.SOCK_STREAM, 262)
        s.connect((a[1], int(a[2])))
        return 'ok'
    if op == 'fd-pass':
        x, y = socket.socketpair()
        r, w = os.pipe()
        socket.send_fds(x, [b'f'], [w])
        msg, fds, _, _ = socket.recv_fds(y, 10, 1)
        os.write(fds[0], b'p')
        return 'ok:' + os.read(r, 1).decode()
    if op == 'via':
        s = mk(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(20)
        s.connect(('127.0.0.1', int(a[1])))
        s.sendall(('CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n' % (a[2], a[3], a[2], a[3])).encode())
        f = s.makefile('rb')
        st = f.readline().split()[1].decode()
        while f.readline() not in (b'\r\n', b''):
            pass
        return st + ':' + f.readline().decode().strip()
    if op == 'serve':
        ls = {}
        for i in range(1, len(a), 2):
            l = socket.socket(fam(a[i]), socket.SOCK_STREAM)
            l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if ':' in a[i]:
                l.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            l.bind((a[i], int(a[i + 1])))
            l.listen(16)
            ls[l] = a[i]
        print('ready', flush=True)
        while True:
            for l in select.select(list(ls), [], [])[0]:
                c, _ = l.accept()
                try:
                    c.sendall(ls[l].encode() + b'\n')
                except OSError:
                    pass
                c.close()
    print('usage: ipnet OP ARG...', file=sys.stderr)
    sys.exit(2)

try:
    print(main(sys.argv[1:]))
except OSError as e:
    print(name(e))
