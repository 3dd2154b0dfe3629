#!/usr/bin/env python3
"""cuts.py FILE [N] - offsets at which to cut FILE, for t_truncate.sh.

Prints two lines:
  1. at least N (default 240) distinct offsets, comma separated, ascending;
  2. the subset of them where the cut falls strictly inside a record, so
     decoding must notice: the file is refused or mounts with `errors` not
     empty.  HPROF: inside a top-level record.  Text formats: inside a line,
     with something of that line lost (a real file ends with a newline, so
     a last line without one was cut).  BMD: none (records are not framed).

Which offsets: every byte of the first 64 (the header and the first record
header); around every record boundary the format has (HPROF: top-level
records and heap dump sub-records; text formats: line starts): the byte
before, the boundary, the byte after, a few bytes in (mid record header),
and the middle of the record; and offsets spread evenly over the whole
file.  When there are more candidates than N, an even spread of them is
kept (all header ones stay), so every region of the file is represented.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkseeds import hprof_records, sub_len  # noqa: E402


def hprof_cuts(data):
    parsed = hprof_records(data)
    if not parsed:
        return set(), set(), []
    hlen, idsz, recs = parsed
    cand, inside = set(), []
    for tag, start, bstart, end in recs:
        for off in (start - 1, start, start + 1, start + 5, bstart, (bstart + end) // 2, end - 1):
            cand.add(off)
        inside.append((start, end))
        if tag in (0x0C, 0x1C):
            p = bstart
            while p < end:
                n = sub_len(data[:end], p, idsz)
                if not n:
                    break
                for off in (p, p + 1, p + n // 2):
                    cand.add(off)
                p += n
    cand.add(hlen)
    return cand, set(), inside


def text_cuts(data):
    cand = set()
    start = 0
    while start < len(data):
        nl = data.find(b"\n", start)
        end = len(data) if nl < 0 else nl + 1
        for off in (start - 1, start, start + 1, (start + end) // 2):
            cand.add(off)
        start = end
    return cand


def main():
    path = sys.argv[1]
    want = int(sys.argv[2]) if len(sys.argv) > 2 else 240
    data = open(path, "rb").read()
    size = len(data)
    header = set(range(0, min(64, size)))
    inside = []
    text = False
    if data.startswith(b"JAVA PROFILE 1.0.") and b"\0" in data[:32]:
        cand, _, inside = hprof_cuts(data)
    elif data[:4096].count(b"\n") > 2 and all(32 <= c < 127 or c in (9, 10, 13) for c in data[:4096]):
        cand = text_cuts(data)
        text = True
    else:
        cand = set()
    spread = {size * i // 64 for i in range(64)}
    cand = {c for c in cand | spread if 64 <= c < size}
    rest = sorted(cand)
    budget = max(want - len(header), 0)
    if len(rest) > budget:
        step = len(rest) / budget
        rest = sorted({rest[int(i * step)] for i in range(budget)})
    offs = sorted(header | set(rest))
    # pad with evenly spaced offsets when the file had few boundaries
    k = 1
    while len(offs) < want and len(offs) < size:
        extra = {size * i // (want * k) for i in range(want * k)} - set(offs)
        offs = sorted(set(offs) | set(sorted(extra)[: want - len(offs)]))
        k += 1
    if text:
        must = [o for o in offs if 0 < o < size and data[o - 1] != 0x0A and
                data[data.rfind(b"\n", 0, o) + 1:o].strip() and
                data[o:(data.find(b"\n", o) + 1 or size + 1) - 1].strip()]
        print(",".join(map(str, offs)))
        print(",".join(map(str, must)))
        return
    # strictly inside a top-level record (after the file header)
    must = []
    j = 0
    for o in offs:
        while j < len(inside) and inside[j][1] <= o:
            j += 1
        if j < len(inside) and inside[j][0] < o < inside[j][1]:
            must.append(o)
    print(",".join(map(str, offs)))
    print(",".join(map(str, must)))


if __name__ == "__main__":
    main()
