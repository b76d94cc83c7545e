#!/usr/bin/env python3
"""mcp-proxy-drive: run CMD and talk JSON lines to its stdin/stdout by script.

  mcp-proxy-drive.py SCRIPT -- CMD [ARG]...

SCRIPT lines:  send JSON | sendpy PYTHON-BYTES-EXPR | wait ID-JSON |
               waitmethod METHOD | answer METHOD RESULT | close | signal NAME | rss | # comment
Every line received is printed as "< LINE"; the end prints "EXIT STATUS".
Waits give up after 30 s with "# gave up waiting" (the test then fails on
content, never on time). CMD runs with an explicit environment: PATH and
the names listed in $DRIVE_ENV.
"""
import json, os, select, signal, subprocess, sys, time

def main():
    script = open(sys.argv[1]).read().splitlines()
    cmd = sys.argv[sys.argv.index('--') + 1:]
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
    for n in os.environ.get('DRIVE_ENV', '').split():
        if n in os.environ:
            env[n] = os.environ[n]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    print('PID %d' % p.pid, flush=True)
    buf = b''
    seen = []
    def pump(timeout):
        nonlocal buf
        r, _, _ = select.select([p.stdout], [], [], timeout)
        if not r:
            return True
        d = os.read(p.stdout.fileno(), 1 << 20)
        if not d:
            return False
        buf += d
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            print('< ' + line.decode('utf-8', 'replace'), flush=True)
            try:
                seen.append(json.loads(line))
            except ValueError:
                seen.append(None)
        return True
    def wait_for(pred):
        end = time.monotonic() + 30
        i = 0
        while True:
            while i < len(seen):
                if pred(seen[i]):
                    seen.pop(i)
                    return
                i += 1
            if time.monotonic() > end:
                print('# gave up waiting', flush=True)
                return
            if not pump(0.05):
                print('# EOF while waiting', flush=True)
                return
    for l in script:
        if not l or l.startswith('#'):
            continue
        op, _, arg = l.partition(' ')
        try:
            if op == 'send':
                p.stdin.write(arg.encode() + b'\n'); p.stdin.flush()
            elif op == 'sendpy':
                p.stdin.write(eval(arg)); p.stdin.flush()
            elif op == 'wait':
                want = json.loads(arg)
                wait_for(lambda m: isinstance(m, dict) and 'method' not in m and m.get('id', 0) == want)
            elif op == 'waitmethod':
                wait_for(lambda m: isinstance(m, dict) and m.get('method') == arg)
            elif op == 'answer':
                # answer the oldest unanswered request METHOD with RESULT
                meth, _, res = arg.partition(' ')
                got = []
                wait_for(lambda m: isinstance(m, dict) and m.get('method') == meth and 'id' in m and not got.append(m))
                if got:
                    p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': got[0]['id'], 'result': json.loads(res)}).encode() + b'\n')
                    p.stdin.flush()
            elif op == 'close':
                p.stdin.close()
            elif op == 'rss':
                for l2 in open('/proc/%d/status' % p.pid):
                    if l2.startswith('VmHWM:'):
                        print('HWM %s' % l2.split()[1], flush=True)
            elif op == 'signal':
                p.send_signal(getattr(signal, arg))
        except BrokenPipeError:
            print('# broken pipe', flush=True)
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    end = time.monotonic() + 30
    while time.monotonic() < end and pump(0.1):
        pass
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill(); rc = p.wait()
        print('# killed: did not exit')
    print('EXIT %d' % rc, flush=True)

main()
