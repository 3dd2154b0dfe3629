#!/usr/bin/env python3
"""hostile.py KIND OUT [ARGS...] - crafted inputs the tests make on the fly
(tests/mount/t_hostile.sh), too big or too many to keep in the tree:

  short-inside OUT     an instance with fewer bytes than its class's fields,
                       followed by an object whose id sits where the missing
                       reference would be read (an over-read inside the file)
  short-last OUT       the same, last in the file (an over-read past its end)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkseeds import Hprof, be, short_instance_last, T_OBJ, T_BYTE, WIDTH  # noqa: E402


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


def main():
    kind, out = sys.argv[1], sys.argv[2]
    make = {"short-inside": short_inside, "short-last": short_instance_last}[kind]
    with open(out, "wb") as f:
        f.write(make())


if __name__ == "__main__":
    main()
