#!/usr/bin/python3
# confine-tree.py MODE [DIR]: a program for tests/cli/confine-tree.t, run
# inside confine --filter-ip.
#   tree DIR: write its pid to DIR/prog, fork a grandchild (DIR/gc) and an
#     orphan (DIR/orph, written once its first parent has gone); when
#     DIR/stop appears each makes a brokered connect to a listener of its
#     own and writes ok (or the error) to DIR/NAME.done; exits 0 when all
#     three are done.
#   term DIR: write DIR/ready, wait for SIGTERM, say who sent it and
#     whether another is pending; exit 7.
#   sig: on a terminal: print ready, wait for ^C's SIGINT, send SIGTERM to
#     its parent and wait for it to come back (--no-scope), then send
#     SIGINT to its parent and wait for that; say which each was.
import os, signal, socket, sys, time

SI_USER, SI_KERNEL = 0, 0x80


def put(d, name, text):
    t = os.path.join(d, name + ".t")
    with open(t, "w") as f:
        f.write(text)
    os.rename(t, os.path.join(d, name))


def wait_file(path):
    while not os.path.exists(path):
        time.sleep(0.05)


def own():
    try:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen()
        socket.create_connection(s.getsockname()).close()
        return "ok"
    except OSError as e:
        return "error:" + (os.strerror(e.errno) if e.errno else str(e))


def part(d, name):
    put(d, name, str(os.getpid()))
    wait_file(os.path.join(d, "stop"))
    put(d, name + ".done", own())


def tree(d):
    put(d, "prog", str(os.getpid()))
    gc = os.fork()
    if gc == 0:
        part(d, "gc")
        os._exit(0)
    mid = os.fork()
    if mid == 0:
        first = os.getpid()
        if os.fork() == 0:
            while os.getppid() == first:
                time.sleep(0.05)
            part(d, "orph")
            os._exit(0)
        os._exit(0)
    os.waitpid(mid, 0)
    wait_file(os.path.join(d, "stop"))
    put(d, "prog.done", own())
    os.waitpid(gc, 0)
    # the orphan is served for as long as this program runs
    wait_file(os.path.join(d, "orph.done"))
    return 0


def who(info):
    if info.si_code == SI_KERNEL:
        return "kernel"
    if info.si_code == SI_USER and info.si_pid == os.getppid():
        return "forwarded"
    return "other(code=%d pid=%d)" % (info.si_code, info.si_pid)


def term(d):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    put(d, "ready", "r")
    i = signal.sigwaitinfo({signal.SIGTERM})
    print("term:%s again:%s" % (who(i), signal.SIGTERM in signal.sigpending()))
    return 7


def sig():
    both = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, both)
    print("ready", flush=True)
    i = signal.sigwaitinfo({signal.SIGINT})
    # the parent handles signals in order: had it passed the terminal's
    # SIGINT on, that one would be pending here before this SIGTERM
    os.kill(os.getppid(), signal.SIGTERM)
    t = signal.sigwaitinfo({signal.SIGTERM})
    again = signal.SIGINT in signal.sigpending()
    os.kill(os.getppid(), signal.SIGINT)
    i2 = signal.sigwaitinfo({signal.SIGINT})
    print("int:%s term:%s int-again:%s int2:%s" % (who(i), who(t), again, who(i2)), flush=True)
    return 0


mode = sys.argv[1]
if mode == "tree":
    sys.exit(tree(sys.argv[2]))
if mode == "term":
    sys.exit(term(sys.argv[2]))
sys.exit(sig())
