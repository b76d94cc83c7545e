"""sandbox-mcp --listen: one client's slow call holds up no other client's.

  sandbox-mcp-concurrent.py PORT TOKENFILE STORE SCENARIO [URL]

Raw HTTP/1.1 to the endpoint, each client an MCP session of its own
(Mcp-Session-Id). Every check is an order of events, never a time: a
call "still in flight" is one whose stall the test has not let go of.
Prints one line per finding, "name value", for the .t to match.

  bash   A's session_bash waits for a file the test writes (ws/go); while
         it runs B's tools/list, session_bash and create_session answer;
         a call on A's session waits for A's (it reads what A wrote last);
         max_concurrent_calls 2: a third call is refused, then served
  fetch  A's session_fetch of URL (a server that sends its head, then a
         byte at a time until the test lets go); while it runs B's calls
         answer, and the idle reaper (timeout made 1 s through CFG) closes
         B's idle sessions but not A's
  hold   A's session_bash started and left running (the .t then kills
         the server); prints the command's pid
"""
import json, os, select, socket, sys, time

port, token = int(sys.argv[1]), open(sys.argv[2]).read().strip()
store, scenario = sys.argv[3], sys.argv[4]
url = sys.argv[5] if len(sys.argv) > 5 else ''
n = [0]


def say(k, v):
    print(k, v, flush=True)


def send(body, sid=None):
    s = socket.create_connection(('127.0.0.1', port))
    s.settimeout(300)
    b = json.dumps(body).encode()
    h = ('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n'
         'Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n' % (port, token))
    if sid:
        h += 'Mcp-Session-Id: %s\r\n' % sid
    s.sendall((h + 'Content-Length: %d\r\n\r\n' % len(b)).encode() + b)
    return s


def recv(s):
    d = b''
    while b'\r\n\r\n' not in d:
        c = s.recv(65536)
        if not c:
            return {}, None
        d += c
    head, body = d.split(b'\r\n\r\n', 1)
    hd = {}
    for l in head.split(b'\r\n')[1:]:
        k, v = l.split(b':', 1)
        hd[k.strip().lower().decode()] = v.strip().decode()
    want = int(hd.get('content-length', '0'))
    while len(body) < want:
        c = s.recv(65536)
        if not c:
            break
        body += c
    s.close()
    return hd, (json.loads(body) if body else None)


def pending(s):
    """True when nothing of an answer has come on s (checked now, no wait)."""
    r, _, _ = select.select([s], [], [], 0)
    return not r


def req(method, params=None, sid=None):
    n[0] += 1
    m = {'jsonrpc': '2.0', 'id': n[0], 'method': method}
    if params is not None:
        m['params'] = params
    return send(m, sid)


def tool(name, args, sid):
    return req('tools/call', {'name': name, 'arguments': args}, sid)


def res(msg):
    r = msg.get('result') or {}
    return r.get('structuredContent') or {}


def client():
    hd, m = recv(req('initialize', {'protocolVersion': '2025-11-25', 'capabilities': {},
                                    'clientInfo': {'name': 't', 'version': '1'}}))
    sid = hd['mcp-session-id']
    recv(send({'jsonrpc': '2.0', 'method': 'notifications/initialized'}, sid))
    _, m = recv(tool('create_session', {}, sid))
    return sid, res(m)['session_id']


def ws(sess, name):
    return os.path.join(store, 'sessions', sess, 'workspace', name)


def wait_file(p):
    for _ in range(6000):
        if os.path.exists(p):
            return True
        time.sleep(0.05)
    return False


def touch(p):
    open(p, 'w').close()


STALL = 'echo $$ > pid; : > started; while [ ! -e go ]; do sleep 0.05; done; echo after > after.txt; echo done'

sa, a = client()
sb, b = client()

if scenario == 'hold':
    ca = tool('session_bash', {'command': STALL}, sa)
    say('started', wait_file(ws(a, 'started')))
    say('pid', open(ws(a, 'pid')).read().strip())
    sys.exit(0)	# the call runs on without its client; the .t kills the server

if scenario == 'bash':
    ca = tool('session_bash', {'command': STALL}, sa)
    say('a-started', wait_file(ws(a, 'started')))
elif scenario == 'fetch':
    ca = tool('session_fetch', {'url': url}, sa)
    say('a-fetching', wait_file(os.environ['STALL_DIR'] + '/stall-seen'))

# B, while A's call is in flight
_, m = recv(req('tools/list', None, sb))
say('b-list', len(m['result']['tools']) > 10)
_, m = recv(tool('session_bash', {'command': 'echo hi'}, sb))
say('b-bash', res(m).get('stdout'))
_, m = recv(tool('create_session', {'label': 'b2'}, sb))
say('b-create', m['result']['isError'] is False and len(res(m).get('session_id', '')) == 16)
if scenario == 'bash':
    say('a-pending', pending(ca) and not os.path.exists(ws(a, 'go')))
else:
    say('a-pending', pending(ca) and not os.path.exists(os.environ['STALL_DIR'] + '/stall-closed'))

if scenario == 'bash':
    # the bound: A and C in flight, max_concurrent_calls 2
    cc = tool('session_bash', {'command': STALL, 'session_id': b}, sb)
    say('c-started', wait_file(ws(b, 'started')))
    _, m = recv(tool('get_config', {}, sb))
    say('bound-refused', json.dumps(m.get('error')))
    _, m = recv(req('tools/list', None, sb))
    say('bound-list', 'result' in m)
    touch(ws(b, 'go'))
    _, m = recv(cc)
    say('c-done', res(m).get('stdout'))
    _, m = recv(tool('get_config', {}, sb))
    say('bound-after', res(m).get('config', {}).get('max_concurrent_calls'))
    # a call on A's session waits for A's: it reads what A wrote last
    ce = tool('session_read_file', {'path': 'after.txt'}, sa)
    touch(ws(a, 'go'))
    _, m = recv(ca)
    say('a-done', res(m).get('stdout'))
    _, m = recv(ce)
    say('e-after-a', res(m).get('content'))
    # the current session stayed each client's
    _, m = recv(tool('get_session_state', {}, sa))
    say('a-current', res(m).get('session_id') == a)
else:
    # the idle reaper, with the timeout made 1 s now (the config is read
    # at each call): B's sessions, idle, are closed (the control: it ran);
    # A's, whose fetch is in flight, is not
    cfg = os.environ['CFG']
    c = json.load(open(cfg))
    c['session_idle_timeout_secs'] = 1
    with open(cfg, 'w') as f:
        json.dump(c, f)
    time.sleep(2.5)
    _, m = recv(tool('get_config', {}, sb))
    say('reap-idle', 'result' in m and not os.path.isdir(os.path.join(store, 'sessions', b)))
    say('reap-kept', os.path.isdir(os.path.join(store, 'sessions', a)))
    touch(os.environ['STALL_DIR'] + '/let-go')
    _, m = recv(ca)
    say('a-done', json.dumps(m.get('result', {}).get('content', [{}])[0].get('text', ''))[:200])
