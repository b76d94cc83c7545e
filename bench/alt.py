#!/usr/bin/env python3
"""bench/alt.py: run commands alternately, run by run, and print medians
and paired ratios.

    bench/alt.py [-r RUNS] [-w WARMUP] [--ref NAME] [--pair A/B] [--cwd DIR]
                 NAME='[VAR=VALUE ...] PROG ARG...' ...

Each round runs every command once, in an order rotated by one each round,
so that a drift of the machine (other developers' load, a filesystem whose
cost changes) weighs on every side alike and no side always runs first.
Commands are split as a shell would split words (shlex) but run without a
shell (posix_spawn, then wait4), as hyperfine -N does; leading VAR=VALUE
words set the command's environment. Output and errors go to /dev/null; a
command that fails stops the bench.

Per command: the median wall time, the median CPU time the process tree
was charged (wait4's rusage: this kernel books short processes in 4 ms
ticks, so it is coarse, not "user" time to trust alone) and, against
--ref (the first command unless named), the paired ratio: the median of
this run's time over the reference's time in the same round.
"""
import argparse
import os
import shlex
import statistics
import sys
import time


def parse(spec):
    name, _, cmd = spec.partition("=")
    if not name or not cmd:
        sys.exit("bench/alt.py: usage: NAME='PROG ARG...' (got %r)" % spec)
    words = shlex.split(cmd)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith(("/", "=")):
        k, _, v = words.pop(0).partition("=")
        env[k] = v
    if not words:
        sys.exit("bench/alt.py: %s: no program" % name)
    return name, words, env


def run_once(argv, env, devnull):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                       (os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    return status, (t1 - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3


def main():
    ap = argparse.ArgumentParser(prog="bench/alt.py")
    ap.add_argument("-r", "--runs", type=int, default=int(os.environ.get("RUNS", 100)))
    ap.add_argument("-w", "--warmup", type=int, default=3)
    ap.add_argument("--ref")
    ap.add_argument("--cwd", help="run every command there")
    ap.add_argument("--title", default="")
    ap.add_argument("--pair", action="append", default=[], metavar="A/B",
                    help="also print A's paired ratio over B")
    ap.add_argument("cmds", nargs="+")
    a = ap.parse_args()
    if a.cwd:
        os.chdir(a.cwd)
    cmds = [parse(s) for s in a.cmds]
    names = [c[0] for c in cmds]
    ref = a.ref or names[0]
    if ref not in names:
        sys.exit("bench/alt.py: --ref %s is not one of the commands" % ref)
    devnull = os.open(os.devnull, os.O_RDWR)
    wall = {n: [] for n in names}
    cpu = {n: [] for n in names}
    load0 = os.getloadavg()
    for rnd in range(a.warmup + a.runs):
        k = rnd % len(cmds)
        for name, argv, env in cmds[k:] + cmds[:k]:
            st, w, c = run_once(argv, env, devnull)
            if st != 0:
                sys.exit("bench/alt.py: %s exited with status %d: %s" % (name, os.waitstatus_to_exitcode(st), " ".join(argv)))
            if rnd >= a.warmup:
                wall[name].append(w)
                cpu[name].append(c)
    load1 = os.getloadavg()
    med = {n: statistics.median(wall[n]) for n in names}
    print("%s%d rounds, alternating (order rotated each round); load average %.2f before, %.2f after, %d CPUs"
          % (a.title + ": " if a.title else "", a.runs, load0[0], load1[0], os.cpu_count()))
    print("  %-12s %10s %10s %10s %12s %10s" % ("", "median ms", "min ms", "cpu ms", "/%s paired" % ref, "of medians"))
    for n in names:
        pr = statistics.median([x / y for x, y in zip(wall[n], wall[ref])])
        print("  %-12s %10.3f %10.3f %10.3f %12.3f %10.3f" % (
            n, med[n], min(wall[n]), statistics.mean(cpu[n]), pr, med[n] / med[ref]))
    for p in a.pair:
        x, _, y = p.partition("/")
        if x in wall and y in wall:
            print("  %s / %s paired: %.3f (of medians %.3f)" % (
                x, y, statistics.median([u / v for u, v in zip(wall[x], wall[y])]), med[x] / med[y]))


if __name__ == "__main__":
    main()
