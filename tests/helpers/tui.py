#!/usr/bin/python3
"""tui.py: a small full-screen program (curses, alternate screen, raw keys,
KEY_RESIZE): shows the terminal's size and the last key; q quits."""
import curses


def main(w):
    curses.raw()
    key = "none"
    while True:
        h, wd = w.getmaxyx()
        w.erase()
        w.addstr(0, 0, "tui size %dx%d" % (h, wd))
        w.addstr(1, 0, "tui key %s" % key)
        w.addstr(h - 1, 0, "tui bottom")
        w.refresh()
        c = w.getch()
        if c == curses.KEY_RESIZE:
            continue
        if c == ord("q"):
            return
        key = "ctrl-c" if c == 3 else chr(c) if 32 <= c < 127 else str(c)


curses.wrapper(main)
