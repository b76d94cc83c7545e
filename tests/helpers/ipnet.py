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
#   tfo-msg HOST PORT    sendmsg with MSG_FASTOPEN
#   tfo-connect HOST PORT  TCP_FASTOPEN_CONNECT, connect, send
#   mptcp HOST PORT      socket(IPPROTO_MPTCP)
#   fd-pass              sendmsg SCM_RIGHTS over a socketpair
#   mmsg HOST PORT N     one sendmmsg of N UDP datagrams to HOST:PORT: "ok:SENT"
#   mmsg-own [6]         bind a UDP socket of its own on 127.0.0.1 (6: ::1),
#                        one sendmmsg of 3 datagrams to it:
#                        "ok:SENT:MSG_LENS:RECEIVED"
#   mmsg-mixed HOST PORT one sendmmsg: a datagram to its own socket, then one
#                        to HOST:PORT, then one to its own: "ok:SENT:RECEIVED"
#                        (RECEIVED: those of the first SENT that were its own)
#   via PORT HOST HPORT  CONNECT HOST:HPORT through the proxy on 127.0.0.1:PORT;
#                        "STATUS:first line after" (the tunnel's or the reason)
#   serve ADDR PORT...   (outside) TCP listeners answering "NAME\n" where
#                        NAME is ADDR; prints "ready" once all are bound
import ctypes, errno, os, select, socket, struct, sys

class IOV(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]

class MSG(ctypes.Structure):
    _fields_ = [('name', ctypes.c_void_p), ('namelen', ctypes.c_uint32),
                ('iov', ctypes.POINTER(IOV)), ('iovlen', ctypes.c_size_t),
                ('control', ctypes.c_void_p), ('controllen', ctypes.c_size_t),
                ('flags', ctypes.c_int)]

class MMSG(ctypes.Structure):
    _fields_ = [('hdr', MSG), ('len', ctypes.c_uint)]

def sockaddr(h, p):
    if ':' in h:
        return struct.pack('<HHI', socket.AF_INET6, socket.htons(p), 0) + \
            socket.inet_pton(socket.AF_INET6, h) + b'\0' * 4
    return struct.pack('<HH', socket.AF_INET, socket.htons(p)) + socket.inet_aton(h) + b'\0' * 8

def sendmmsg(s, msgs):
    # msgs: [(data, host, port)]; one sendmmsg(2); (sent, [msg_len...])
    libc = ctypes.CDLL(None, use_errno=True)
    v = (MMSG * len(msgs))()
    keep = []
    for i, (data, h, p) in enumerate(msgs):
        a = ctypes.create_string_buffer(sockaddr(h, p))
        b = ctypes.create_string_buffer(data, len(data))
        iov = IOV(ctypes.cast(b, ctypes.c_void_p), len(data))
        keep += [a, b, iov]
        v[i].hdr.name = ctypes.cast(a, ctypes.c_void_p)
        v[i].hdr.namelen = len(a.raw) - 1
        v[i].hdr.iov = ctypes.pointer(iov)
        v[i].hdr.iovlen = 1
    n = libc.sendmmsg(s.fileno(), v, len(msgs), 0)
    if n < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return n, [v[i].len for i in range(len(msgs))]

def take(r, n):
    # the n datagrams sent (a 10 s safety net, not a measure)
    r.settimeout(10)
    return ''.join(r.recv(10).decode() for _ in range(n))

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
    if op in ('tfo', 'tfo-msg'):
        s = mk(fam(a[1]), socket.SOCK_STREAM)
        if op == 'tfo':
            s.sendto(b'x', 0x20000000, (a[1], int(a[2])))
        else:
            s.sendmsg([b'x'], [], 0x20000000, (a[1], int(a[2])))
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
    if op == 'mmsg':
        s = mk(fam(a[1]), socket.SOCK_DGRAM)
        n, _ = sendmmsg(s, [(b'm', a[1], int(a[2]))] * int(a[3]))
        return 'ok:%d' % n
    if op == 'mmsg-own':
        h = '::1' if a[1:] == ['6'] else '127.0.0.1'
        r = mk(fam(h), socket.SOCK_DGRAM)
        r.bind((h, 0))
        p = r.getsockname()[1]
        s = mk(fam(h), socket.SOCK_DGRAM)
        n, lens = sendmmsg(s, [(b'a', h, p), (b'bb', h, p), (b'ccc', h, p)])
        return 'ok:%d:%s:%s' % (n, ','.join(map(str, lens)), take(r, n))
    if op == 'mmsg-mixed':
        r = mk(socket.AF_INET, socket.SOCK_DGRAM)
        r.bind(('127.0.0.1', 0))
        p = r.getsockname()[1]
        s = mk(socket.AF_INET, socket.SOCK_DGRAM)
        n, _ = sendmmsg(s, [(b'1', '127.0.0.1', p), (b'2', a[1], int(a[2])), (b'3', '127.0.0.1', p)])
        return 'ok:%d:%s' % (n, take(r, n - (n >= 2)))
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
