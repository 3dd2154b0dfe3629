#!/usr/bin/env python3
"""hostile.py KIND OUT [ARGS...] - crafted inputs the tests make on the fly
(tests/mount/t_hostile.sh), too big or too many to keep in the tree:

  short-inside OUT     an instance with fewer bytes than its class's fields,
                       followed by an object whose id sits where the missing
                       reference would be read (an over-read inside the file)
  short-last OUT       the same, last in the file (an over-read past its end)
  deep-chain OUT N F   N classes, each the super of the next, each declaring
                       F fields (long and reference, all named "f"), an
                       instance of each: the last one with its fields'
                       bytes, the others with none
  pprof-bomb OUT MIB   a gzipped profile.proto whose string table holds MIB
                       MiB of empty strings (2 bytes each, some 64 once
                       unpacked; gzip shrinks them 1000 times)
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkseeds import Hprof, be, short_instance_last, T_OBJ, T_BYTE, T_LONG, WIDTH  # noqa: E402


def short_inside(idsz=8):
    """Holder {byte b; Object r}: 0x400 has no data; the next sub-record's
    id (0x500) is where 0x400's r would be read."""
    h = Hprof(idsz=idsz)
    names = {n: h.string(n) for n in ["java/lang/Object", "Holder", "b", "r"]}
    h.record(0x02, be("I", 1) + h.id(0x100) + be("I", 1) + h.id(names["java/lang/Object"]))
    h.record(0x02, be("I", 2) + h.id(0x200) + be("I", 1) + h.id(names["Holder"]))
    sub = be("B", 0xFF) + h.id(0x400)
    for cid, sup, fields in ((0x100, 0, []), (0x200, 0x100, [("b", T_BYTE), ("r", T_OBJ)])):
        sub += be("B", 0x20) + h.id(cid) + be("I", 1) + h.id(sup) + h.id(0) * 5
        sub += be("I", sum(idsz if t == T_OBJ else WIDTH[t] for _, t in fields))
        sub += be("HHH", 0, 0, len(fields))
        sub += b"".join(h.id(names[n]) + be("B", t) for n, t in fields)
    sub += be("B", 0x21) + h.id(0x400) + be("I", 1) + h.id(0x200) + be("I", 0)
    sub += be("B", 0x21) + h.id(0x500) + be("I", 1) + h.id(0x100) + be("I", 0)
    h.record(0x1C, sub)
    h.record(0x2C, b"")
    return bytes(h.out)


def deep_chain(n, nf, idsz=8):
    """Class k (id 0x1000 + k) extends class k - 1 (k = 0 extends
    java.lang.Object) and declares nf fields named "f", long and reference
    in turn; instance 0x100000 + k of class k has no bytes, but for the
    last, which has its chain's (zeros, and references to the one before
    it)."""
    n, nf = int(n), int(nf)
    h = Hprof(idsz=idsz)
    obj, f = h.string("java/lang/Object"), h.string("f")
    h.record(0x02, be("I", 1) + h.id(0x100) + be("I", 1) + h.id(obj))
    for k in range(n):
        h.record(0x02, be("I", 2 + k) + h.id(0x1000 + k) + be("I", 1) +
                 h.id(h.string("C%d" % k)))
    types = [T_LONG if i % 2 == 0 else T_OBJ for i in range(nf)]
    own = sum(8 if t == T_LONG else idsz for t in types)
    decl = b"".join(h.id(f) + be("B", t) for t in types)
    body = bytearray(be("B", 0x20) + h.id(0x100) + be("I", 1) + h.id(0) * 6 + be("IHHH", 0, 0, 0, 0))
    body += be("B", 0xFF) + h.id(0x100000 + n - 1)
    for k in range(n):
        sup = 0x1000 + k - 1 if k else 0x100
        body += be("B", 0x20) + h.id(0x1000 + k) + be("I", 1) + h.id(sup) + h.id(0) * 5
        body += be("I", own * (k + 1)) + be("HHH", 0, 0, nf) + decl
    for k in range(n):
        prev = h.id(0x100000 + k - 1 if k else 0)
        data = b"" if k < n - 1 else b"".join(be("Q", 0) if t == T_LONG else prev
                                              for t in types) * n
        body += be("B", 0x21) + h.id(0x100000 + k) + be("I", 1) + h.id(0x1000 + k)
        body += be("I", len(data)) + data
    h.record(0x1C, bytes(body))
    h.record(0x2C, b"")
    return bytes(h.out)


def pprof_bomb(mib):
    """sample_type {type: 1, unit: 2}, period_type the same, period 1, then
    the string table "", "space", "bytes" and mib MiB of "" entries."""
    vt = bytes([0x08, 0x01, 0x10, 0x02])
    raw = b"\x0a\x04" + vt + b"\x5a\x04" + vt + b"\x60\x01"
    raw += b"\x32\x00" + b"\x32\x05space" + b"\x32\x05bytes"
    raw += b"\x32\x00" * (int(mib) << 19)
    return gzip.compress(raw, 9)


def main():
    kind, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    make = {"short-inside": short_inside, "short-last": short_instance_last,
            "deep-chain": deep_chain, "pprof-bomb": pprof_bomb}[kind]
    with open(out, "wb") as f:
        f.write(make(*args))


if __name__ == "__main__":
    main()
