#!/usr/bin/python3
# bench/egress-conn.py PORT N: N TCP connects to 127.0.0.1:PORT, then N
# one-byte write/read round trips on one connection; prints the median of
# each in microseconds ("connect_us RT_us").
import socket, statistics, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
c = []
for _ in range(n):
    s = socket.socket()
    t = time.perf_counter_ns()
    s.connect(('127.0.0.1', port))
    c.append(time.perf_counter_ns() - t)
    s.close()
s = socket.socket()
s.connect(('127.0.0.1', port))
rt = []
for _ in range(n):
    t = time.perf_counter_ns()
    s.send(b'x')
    s.recv(1)
    rt.append(time.perf_counter_ns() - t)
print('%.1f %.1f' % (statistics.median(c) / 1e3, statistics.median(rt) / 1e3))
