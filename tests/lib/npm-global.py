#!/usr/bin/env python3
"""npm-global.py PREFIX NODE_MODULES PKG: lay out PKG, fetched once by mk/npm
into NODE_MODULES (with its dependencies hoisted beside it), the way
`npm install -g --prefix PREFIX PKG` leaves it: PREFIX/lib/node_modules/PKG
with its dependencies nested in PKG/node_modules, and PREFIX/bin/NAME a
relative symbolic link to each of its "bin" entries. Files are hard links to
the cache where the file system allows it (fast, no copy), else copies.
Installing from the registry on every run is slow and needs the network;
this needs neither, and the layout is npm's own (see npm-install(1), global)."""
import json, os, shutil, sys

def copytree(src, dst):
    try:
        shutil.copytree(src, dst, symlinks=True, copy_function=os.link)
    except (OSError, shutil.Error):
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst, symlinks=True)

def main():
    prefix, nm, pkg = sys.argv[1:4]
    lib = os.path.join(prefix, "lib", "node_modules")
    dst = os.path.join(lib, pkg)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    copytree(os.path.join(nm, pkg), dst)
    nested = os.path.join(dst, "node_modules")
    for name in sorted(os.listdir(nm)):
        if name.startswith("."):
            continue
        subs = [os.path.join(name, s) for s in sorted(os.listdir(os.path.join(nm, name)))] \
            if name.startswith("@") else [name]
        for rel in subs:
            if rel == pkg:
                continue
            os.makedirs(os.path.dirname(os.path.join(nested, rel)), exist_ok=True)
            copytree(os.path.join(nm, rel), os.path.join(nested, rel))
    meta = json.load(open(os.path.join(dst, "package.json")))
    bins = meta.get("bin") or {}
    if isinstance(bins, str):
        bins = {pkg.split("/")[-1]: bins}
    bindir = os.path.join(prefix, "bin")
    os.makedirs(bindir, exist_ok=True)
    for name, rel in bins.items():
        target = os.path.normpath(os.path.join("..", "lib", "node_modules", pkg, rel))
        link = os.path.join(bindir, name)
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(target, link)
        print(name)

main()
