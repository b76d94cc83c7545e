#!/usr/bin/env python3
"""mcp-proxy-client: time tools/call round trips against an MCP stdio command.

  mcp-proxy-client.py N WINDOW TOOL ARGS_JSON -- CMD [ARG]...

Prints one JSON line: p50/p99 round trip (us) of N sequential calls,
throughput (calls/s) of N calls kept WINDOW deep in flight, and the peak
and idle RSS (kB) of CMD's whole process tree at the end.
"""
import json, os, subprocess, sys, time

def tree_rss(pid):
    """VmRSS of pid and all its descendants, in kB."""
    kids = {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                ppid = int(open('/proc/%s/stat' % d).read().rsplit(')', 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    tot, todo = {}, [pid]
    while todo:
        p = todo.pop()
        try:
            for l in open('/proc/%d/status' % p):
                if l.startswith('VmRSS:'):
                    tot[p] = int(l.split()[1])
        except OSError:
            pass
        todo += kids.get(p, [])
    return tot

def main():
    n, window, tool, args = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
    cmd = sys.argv[sys.argv.index('--') + 1:]
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': os.environ.get('HOME', '/')}
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, bufsize=0)
    rf = p.stdout
    buf = b''
    def send(m):
        p.stdin.write((json.dumps(m) + '\n').encode())
    def recv_id():
        nonlocal buf
        while True:
            while b'\n' not in buf:
                d = os.read(rf.fileno(), 1 << 16)
                if not d:
                    raise SystemExit('EOF from ' + cmd[0])
                buf += d
            line, buf = buf.split(b'\n', 1)
            m = json.loads(line)
            if 'id' in m and 'method' not in m:
                if 'error' in m:
                    raise SystemExit('error: %r' % m['error'])
                return m['id']
    send({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {'protocolVersion': '2025-11-25',
          'capabilities': {}, 'clientInfo': {'name': 'bench', 'version': '1'}}})
    recv_id()
    send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    time.sleep(0.5)
    t0 = tree_rss(p.pid)
    idle, front_idle = sum(t0.values()), t0.get(p.pid, 0)
    call = lambda i: send({'jsonrpc': '2.0', 'id': i, 'method': 'tools/call', 'params': {'name': tool, 'arguments': args}})
    for i in range(1, 200):		# warm-up
        call(i); recv_id()
    lat = []
    for i in range(1000, 1000 + n):
        t = time.perf_counter_ns(); call(i); recv_id(); lat.append(time.perf_counter_ns() - t)
    lat.sort()
    t = time.perf_counter_ns()
    sent = got = 0
    while got < n:
        while sent < n and sent - got < window:
            call(100000 + sent); sent += 1
        recv_id(); got += 1
    thr = n / ((time.perf_counter_ns() - t) / 1e9)
    loaded = tree_rss(p.pid)
    own = loaded.get(p.pid, 0)
    p.stdin.close()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
    print(json.dumps({'p50_us': lat[len(lat) // 2] / 1000, 'p99_us': lat[int(len(lat) * 0.99)] / 1000,
                      'calls_per_s': thr, 'idle_rss_kb': idle, 'loaded_rss_kb': sum(loaded.values()),
                      'front_idle_kb': front_idle, 'front_rss_kb': own}))

main()
