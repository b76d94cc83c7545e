#!/usr/bin/python3
# shm-own.py WHAT [NAME]: POSIX shared memory and semaphores, one line of
# outcome.
#   mp            multiprocessing Pool(2) and ProcessPoolExecutor(2): "ok 1 4 9 1 4"
#   own NAME      shm_open(NAME, O_CREAT|O_EXCL), write, reopen by name,
#                 read, shm_unlink: "ok 7"
#   sem NAME      sem_open(NAME, O_CREAT|O_EXCL), post, reopen, wait,
#                 sem_unlink: "ok 1"
#   make NAME     shm_open(NAME, O_CREAT|O_EXCL), write "u", keep it: "ok"
#   read NAME     shm_open(NAME, O_RDONLY), its first byte: "ok u"
#   write NAME    shm_open(NAME, O_RDWR), write "w": "ok"
#   take NAME     shm_open(NAME, O_CREAT|O_RDWR) (no O_EXCL): "ok"
#   unlink NAME   shm_unlink(NAME): "ok"
#   file NAME     open("/dev/shm/NAME") by its plain path: "ok"
#   list          list /dev/shm: "ok"
# Prints "ok ..." or the errno's name; exits 0 either way, 2 on usage.
import ctypes, errno, mmap, os, sys

try:
    import _posixshmem
except ImportError:  # pragma: no cover
    _posixshmem = None


def outcome(f):
    try:
        r = f()
        print("ok" if r is None else "ok " + str(r), flush=True)
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e)), flush=True)


def mp():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with multiprocessing.Pool(2) as p:
        a = p.map(abs, [1, -4, 9])
    with ProcessPoolExecutor(2) as e:
        b = list(e.map(abs, [1, -4]))
    return " ".join(str(x) for x in a + b)


def shm(name, flags, mode=0o600):
    return _posixshmem.shm_open(name, flags, mode)


def own(name):
    fd = shm(name, os.O_CREAT | os.O_EXCL | os.O_RDWR)
    os.ftruncate(fd, 4096)
    m = mmap.mmap(fd, 4096)
    m[0] = 7
    fd2 = shm(name, os.O_RDWR)
    v = mmap.mmap(fd2, 4096)[0]
    _posixshmem.shm_unlink(name)
    return v


def sem(name):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.sem_open.restype = ctypes.c_void_p
    libc.sem_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint]
    s = libc.sem_open(name.encode(), os.O_CREAT | os.O_EXCL, 0o600, 0)
    if s in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "sem_open")
    libc.sem_post(ctypes.c_void_p(s))
    libc.sem_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
    t = libc.sem_open(name.encode(), 0)
    if t in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "sem_open")
    v = ctypes.c_int(-1)
    libc.sem_wait(ctypes.c_void_p(t))
    libc.sem_getvalue(ctypes.c_void_p(t), ctypes.byref(v))
    if libc.sem_unlink(name.encode()) != 0:
        raise OSError(ctypes.get_errno(), "sem_unlink")
    return v.value + 1


def make(name):
    fd = shm(name, os.O_CREAT | os.O_EXCL | os.O_RDWR)
    os.write(fd, b"u")


def read(name):
    return os.read(shm(name, os.O_RDONLY), 1).decode()


def write(name):
    os.write(shm(name, os.O_RDWR), b"w")


def take(name):
    os.write(shm(name, os.O_CREAT | os.O_RDWR), b"t")


a = sys.argv[1:]
one = {"own": own, "sem": sem, "make": make, "read": read, "write": write, "take": take,
       "unlink": lambda n: _posixshmem.shm_unlink(n),
       "file": lambda n: os.close(os.open("/dev/shm/" + n.lstrip("/"), os.O_RDONLY))}
if a == ["mp"]:
    outcome(mp)
elif a == ["list"]:
    outcome(lambda: os.listdir("/dev/shm") and None)
elif len(a) == 2 and a[0] in one:
    outcome(lambda: one[a[0]](a[1]))
else:
    sys.exit("usage: shm-own.py mp | list | own|sem|make|read|write|take|unlink|file NAME")
