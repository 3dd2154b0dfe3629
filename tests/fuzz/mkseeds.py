#!/usr/bin/env python3
"""mkseeds.py FORMAT OUTDIR SRC... - small seed inputs for fuzz_FORMAT.

Fuzzing is fast on small inputs, and libFuzzer is run with -max_len=131072,
so seeds are kept at or under 128 KiB:
  - every file of the SRC dirs (or SRC files) up to that size, whole;
  - bigger ones as prefixes (4, 32 and 128 KiB: a dump cut short, the common
    case of a real bad file);
  - for hprof, complete small dumps written here (hprof_dump()): both id
    sizes, one and two heap dumps, HEAP DUMP and HEAP DUMP SEGMENTs, every
    record and sub-record kind, Android's extra sub-records, and real
    dumps shrunk to their first sub-records (shrink_hprof()), and an
    instance with fewer bytes than its class's fields, last in the file
    (short_instance_last());
  - for decoders that read a series (gperftools), pairs of files joined by
    the separator fuzz_target.c splits on.
Deterministic: the same sources give the same seeds.
"""
import os
import re
import struct
import sys

MAX = 128 * 1024
SPLIT = b"\n@@heapfs-next-file@@\n"


def files_of(srcs):
    out = []
    for s in srcs:
        if os.path.isdir(s):
            for root, _, names in sorted(os.walk(s)):
                for n in sorted(names):
                    out.append(os.path.join(root, n))
        elif os.path.isfile(s):
            out.append(s)
    return [f for f in out if not f.endswith((".md", "-result.txt")) and os.path.getsize(f) > 0]


class Seeds:
    def __init__(self, outdir):
        self.outdir = outdir
        self.n = 0

    def add(self, name, data):
        if not data:
            return
        data = data[:MAX]
        self.n += 1
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
        with open(os.path.join(self.outdir, "%03d-%s" % (self.n, safe)), "wb") as f:
            f.write(data)


# ---------------------------------------------------------------- HPROF


def be(fmt, *v):
    return struct.pack(">" + fmt, *v)


class Hprof:
    """A small HPROF writer: records in order, ids of a chosen size."""

    def __init__(self, version=b"JAVA PROFILE 1.0.2", idsz=8):
        self.idsz = idsz
        self.out = bytearray(version + b"\0" + be("I", idsz) + be("II", 0x17E, 0x12345678))
        self.next_string = 0x1000

    def id(self, v):
        return be("Q" if self.idsz == 8 else "I", v)

    def record(self, tag, body):
        self.out += be("BII", tag, 0, len(body)) + body

    def string(self, text):
        sid = self.next_string
        self.next_string += 8
        self.record(0x01, self.id(sid) + text.encode("utf-8"))
        return sid


# basic type codes and widths
T_OBJ, T_BOOL, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE, T_SHORT, T_INT, T_LONG = 2, 4, 5, 6, 7, 8, 9, 10, 11
WIDTH = {T_BOOL: 1, T_CHAR: 2, T_FLOAT: 4, T_DOUBLE: 8, T_BYTE: 1, T_SHORT: 2, T_INT: 4, T_LONG: 8}


def value(h, t, v):
    if t == T_OBJ:
        return h.id(v)
    return {1: be("B", v & 0xFF), 2: be("H", v & 0xFFFF), 4: be("I", v & 0xFFFFFFFF),
            8: be("Q", v & 0xFFFFFFFFFFFFFFFF)}[WIDTH[t]]


def hprof_dump(idsz=8, version=b"JAVA PROFILE 1.0.2", snapshots=1, segments=True,
               android=False, jdk9_strings=False):
    h = Hprof(version, idsz)
    h.record(0x0E, be("IH", 3, 8))  # CONTROL SETTINGS
    names = {}
    for n in ["java/lang/Object", "java/lang/String", "java/lang/Class", "[C", "[B",
              "[Ljava/lang/Object;", "[[I", "com/example/Node", "com/example/Leaf",
              "com/example/Lambda$$Lambda$14/0x0000000800c03000", "com/example/Node",
              "Shadow", "main", "run", "()V", "Node.java", "value", "next", "left", "count",
              "coder", "hash", "flag", "ch", "f", "d", "b", "s", "l", "STATIC", "system",
              "main-group", "<init>", "(I)V", "Thread-1"]:
        names.setdefault(n, h.string(n))
    # classes: serial -> (class id, name)
    classes = [(1, 0x100, "java/lang/Object"), (2, 0x110, "java/lang/String"),
               (3, 0x120, "java/lang/Class"), (4, 0x130, "[C"), (5, 0x140, "[B"),
               (6, 0x150, "[Ljava/lang/Object;"), (7, 0x160, "[[I"),
               (8, 0x170, "com/example/Node"), (9, 0x180, "com/example/Leaf"),
               (10, 0x190, "com/example/Lambda$$Lambda$14/0x0000000800c03000"),
               (11, 0x1A0, "com/example/Node")]  # same name, another loader
    for serial, cid, name in classes:
        h.record(0x02, be("I", serial) + h.id(cid) + be("I", 1) + h.id(names[name]))
    # frames and traces
    h.record(0x04, h.id(0x500) + h.id(names["run"]) + h.id(names["()V"]) +
             h.id(names["Node.java"]) + be("Ii", 8, 42))
    h.record(0x04, h.id(0x501) + h.id(names["main"]) + h.id(names["()V"]) +
             h.id(names["Node.java"]) + be("Ii", 8, -3))
    h.record(0x04, h.id(0x502) + h.id(names["<init>"]) + h.id(names["(I)V"]) +
             h.id(0) + be("Ii", 99, -1))  # unknown class serial, no source
    h.record(0x05, be("III", 1, 1, 0))
    h.record(0x05, be("III", 2, 1, 2) + h.id(0x500) + h.id(0x501))
    h.record(0x05, be("III", 3, 2, 3) + h.id(0x502) + h.id(0x500) + h.id(0x5FF))
    h.record(0x0A, be("I", 1) + h.id(0x300) + be("I", 2) + h.id(names["main"]) +
             h.id(names["system"]) + h.id(names["main-group"]))
    h.record(0x0A, be("I", 2) + h.id(0x310) + be("I", 3) + h.id(names["Thread-1"]) +
             h.id(0) + h.id(0))
    h.record(0x0B, be("I", 2))
    sites = be("HfIIQQI", 0x2, 0.0, 100, 3, 1000, 30, 3)
    sites += be("BIIIIII", 0, 8, 2, 48, 2, 480, 20)
    sites += be("BIIIIII", T_CHAR, 4, 3, 40, 1, 400, 10)
    sites += be("BIIIIII", 0, 77, 9, 0, 0, 0, 0)  # unknown class serial and trace
    h.record(0x06, sites)
    h.record(0x07, be("IIQQ", 100, 3, 1000, 30))
    h.record(0x0D, be("II", 10, 2) + be("II", 7, 2) + be("II", 3, 3))

    def heap(snap):
        sub = bytearray()
        # roots of every kind
        sub += be("B", 0xFF) + h.id(0x700)
        sub += be("B", 0x01) + h.id(0x700) + h.id(0x9999)
        sub += be("B", 0x02) + h.id(0x710) + be("II", 1, 0)
        sub += be("B", 0x03) + h.id(0x720) + be("II", 1, 1)
        sub += be("B", 0x04) + h.id(0x700) + be("I", 1)
        sub += be("B", 0x05) + h.id(0x100)
        sub += be("B", 0x06) + h.id(0x700) + be("I", 1)
        sub += be("B", 0x07) + h.id(0x710)
        sub += be("B", 0x08) + h.id(0x300) + be("II", 1, 2)
        sub += be("B", 0x03) + h.id(0xDEAD) + be("II", 7, 0)  # dangling root
        if android:
            sub += be("B", 0xFE) + be("I", 1) + h.id(names["main"])
            for tag in (0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x90):
                sub += be("B", tag) + h.id(0x700)
            sub += be("B", 0x8E) + h.id(0x700) + be("II", 1, 0)

        def class_dump(cid, sup, statics, fields, inst_size, cp=()):
            b = be("B", 0x20) + h.id(cid) + be("I", 1) + h.id(sup) + h.id(0x999) + h.id(0) * 4
            b += be("I", inst_size) + be("H", len(cp))
            for idx, t, v in cp:
                b += be("HB", idx, t) + value(h, t, v)
            b += be("H", len(statics))
            for n, t, v in statics:
                b += h.id(names[n]) + be("B", t) + value(h, t, v)
            b += be("H", len(fields))
            for n, t in fields:
                b += h.id(names[n]) + be("B", t)
            return b

        sub += class_dump(0x100, 0, [], [], 0)
        sub += class_dump(0x110, 0x100, [("STATIC", T_INT, 7)],
                          [("value", T_OBJ), ("hash", T_INT)] +
                          ([("coder", T_BYTE)] if jdk9_strings else []),
                          idsz + 4 + (1 if jdk9_strings else 0))
        sub += class_dump(0x120, 0x100, [], [], 0)
        for cid in (0x130, 0x140, 0x150, 0x160):
            sub += class_dump(cid, 0x100, [], [], 0)
        node_fields = [("value", T_INT), ("next", T_OBJ), ("left", T_OBJ), ("flag", T_BOOL),
                       ("ch", T_CHAR), ("f", T_FLOAT), ("d", T_DOUBLE), ("b", T_BYTE),
                       ("s", T_SHORT), ("l", T_LONG)]
        node_size = sum(idsz if t == T_OBJ else WIDTH[t] for _, t in node_fields)
        sub += class_dump(0x170, 0x100,
                          [("STATIC", T_OBJ, 0x800), ("count", T_LONG, 5), ("f", T_FLOAT, 0x3FC00000),
                           ("d", T_DOUBLE, 0x400921FB54442D18), ("flag", T_BOOL, 1), ("ch", T_CHAR, 0x263A),
                           ("b", T_BYTE, 0xFF), ("s", T_SHORT, 0x8000)],
                          node_fields, node_size, cp=[(1, T_INT, 3)])
        sub += class_dump(0x180, 0x170, [], [("value", T_LONG)], 8)  # shadows Node.value
        sub += class_dump(0x190, 0x100, [], [], 0)
        sub += class_dump(0x1A0, 0x100, [], [("count", T_INT)], 4)

        def inst(oid, cid, data, trace=2):
            return be("B", 0x21) + h.id(oid) + be("I", trace) + h.id(cid) + be("I", len(data)) + data

        def node_data(v, nxt, left):
            d = value(h, T_INT, v) + h.id(nxt) + h.id(left) + be("B", 1) + be("H", 0x41)
            d += be("f", 1.5) + be("d", -2.25) + be("b", -1) + be("h", -300) + be("q", -1 << 40)
            return d

        # a cycle, a chain, dangling refs
        sub += inst(0x800, 0x170, node_data(1, 0x810, 0x800))
        sub += inst(0x810, 0x170, node_data(2, 0x800, 0xBAD0))
        sub += inst(0x820, 0x180, value(h, T_LONG, 77) + node_data(3, 0, 0x800))
        sub += inst(0x830, 0x1A0, be("I", 9))
        sub += inst(0x840, 0x190, b"")
        sub += inst(0x850, 0xFFFF0, b"\0\1\2\3")  # unknown class
        sub += inst(0x860, 0x170, node_data(4, 0, 0)[:5])  # short instance data
        # strings: char[] (JDK 8) or byte[] + coder (JDK 9+)
        texts = ["hello", "secret=hunter2", "caf\u00e9 \u263a", "", "tab\there\nnewline"]
        oid = 0x900
        for i, t in enumerate(texts):
            arr = 0xA00 + i * 16
            if jdk9_strings:
                latin = all(ord(c) < 256 for c in t)
                raw = t.encode("latin-1") if latin else t.encode("utf-16-le")
                sub += be("B", 0x23) + h.id(arr) + be("IIB", 1, len(raw), T_BYTE) + raw
                sub += inst(oid, 0x110, h.id(arr) + be("I", i) + be("B", 0 if latin else 1))
            else:
                raw = t.encode("utf-16-be")
                sub += be("B", 0x23) + h.id(arr) + be("IIB", 1, len(raw) // 2, T_CHAR) + raw
                sub += inst(oid, 0x110, h.id(arr) + be("I", i))
            oid += 16
        sub += inst(oid, 0x110, h.id(0x810) + be("I", 0) + (b"\0" if jdk9_strings else b""))  # value is not an array
        # primitive arrays of every type, empty ones, and Android NODATA
        aid = 0xC00
        for t in (T_BOOL, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE, T_SHORT, T_INT, T_LONG):
            n = 3
            data = b"".join(value(h, t, (k * 0x0101010101010101 + 1) & ((1 << (8 * WIDTH[t])) - 1))
                            for k in range(n))
            sub += be("B", 0x23) + h.id(aid) + be("IIB", 1, n, t) + data
            sub += be("B", 0x23) + h.id(aid + 8) + be("IIB", 1, 0, t)
            aid += 16
        sub += be("B", 0x23) + h.id(aid) + be("IIB", 1, 12, T_BYTE) + b"bytes\x00\xff text"
        if android:
            sub += be("B", 0xC3) + h.id(aid + 16) + be("IIB", 1, 1000, T_INT)
        # object arrays: of Object, of int[] (int[][]), with nulls and dangling ids
        sub += be("B", 0x22) + h.id(0xE00) + be("II", 1, 4) + h.id(0x150) + \
            h.id(0x800) + h.id(0) + h.id(0x900) + h.id(0xBAD1)
        sub += be("B", 0x22) + h.id(0xE10) + be("II", 1, 2) + h.id(0x160) + h.id(0xC60) + h.id(0xC60)
        sub += be("B", 0x22) + h.id(0xE20) + be("II", 1, 0) + h.id(0x150)
        # a duplicate object id
        sub += inst(0x840, 0x190, b"")
        if snap:
            sub += inst(0xF00 + snap, 0x170, node_data(snap, 0x800, 0))
        return bytes(sub)

    for snap in range(snapshots):
        body = heap(snap)
        if segments:
            half = len(body) // 2
            # split at a sub-record boundary: find one by re-parsing
            cut = sub_boundary(body, idsz, half)
            h.record(0x1C, body[:cut])
            h.record(0x1C, body[cut:])
            h.record(0x2C, b"")
        else:
            h.record(0x0C, body)
    return bytes(h.out)


def short_instance_last(idsz=8, longs=3000):
    """A class of `longs` long fields then a reference, and an instance of
    it with no data, last in the file (a root): whoever reads its fields
    without checking the instance's end reads far past the file."""
    h = Hprof(idsz=idsz)
    names = {n: h.string(n) for n in ["java/lang/Object", "Big", "f", "r"]}
    h.record(0x02, be("I", 1) + h.id(0x100) + be("I", 1) + h.id(names["java/lang/Object"]))
    h.record(0x02, be("I", 2) + h.id(0x200) + be("I", 1) + h.id(names["Big"]))

    def class_dump(cid, sup, fields):
        b = be("B", 0x20) + h.id(cid) + be("I", 1) + h.id(sup) + h.id(0) * 5
        b += be("I", sum(idsz if t == T_OBJ else WIDTH[t] for _, t in fields))
        b += be("HHH", 0, 0, len(fields))
        return b + b"".join(h.id(names[n]) + be("B", t) for n, t in fields)

    sub = be("B", 0xFF) + h.id(0x300)
    sub += class_dump(0x100, 0, [])
    sub += class_dump(0x200, 0x100, [("f", T_LONG)] * longs + [("r", T_OBJ)])
    sub += be("B", 0x21) + h.id(0x300) + be("I", 1) + h.id(0x200) + be("I", 0)
    h.record(0x1C, sub)
    h.record(0x2C, b"")
    return bytes(h.out)


def sub_len(b, p, idsz):
    """Length of the heap dump sub-record at p, None when unknown or short."""
    if p >= len(b):
        return None
    tag = b[p]
    fixed = {0xFF: idsz, 0x01: 2 * idsz, 0x02: idsz + 8, 0x03: idsz + 8, 0x04: idsz + 4,
             0x05: idsz, 0x06: idsz + 4, 0x07: idsz, 0x08: idsz + 8, 0x89: idsz, 0x8A: idsz,
             0x8B: idsz, 0x8C: idsz, 0x8D: idsz, 0x8E: idsz + 8, 0x90: idsz, 0xFE: 4 + idsz}
    try:
        if tag in fixed:
            return 1 + fixed[tag]
        if tag == 0x21:
            n = struct.unpack_from(">I", b, p + 1 + idsz + 4 + idsz)[0]
            return 1 + idsz + 4 + idsz + 4 + n
        if tag == 0x22:
            n = struct.unpack_from(">I", b, p + 1 + idsz + 4)[0]
            return 1 + idsz + 8 + idsz + n * idsz
        if tag in (0x23, 0xC3):
            n, t = struct.unpack_from(">IB", b, p + 1 + idsz + 4)
            w = WIDTH.get(t, idsz if t == T_OBJ else None)
            if w is None:
                return None
            return 1 + idsz + 9 + (0 if tag == 0xC3 else n * w)
        if tag == 0x20:
            q = p + 1 + 7 * idsz + 8
            ncp = struct.unpack_from(">H", b, q)[0]
            q += 2
            for _ in range(ncp):
                t = b[q + 2]
                q += 3 + (idsz if t == T_OBJ else WIDTH[t])
            ns = struct.unpack_from(">H", b, q)[0]
            q += 2
            for _ in range(ns):
                t = b[q + idsz]
                q += idsz + 1 + (idsz if t == T_OBJ else WIDTH[t])
            nf = struct.unpack_from(">H", b, q)[0]
            q += 2 + nf * (idsz + 1)
            return q - p
    except (struct.error, IndexError, KeyError):
        return None
    return None


def sub_boundary(body, idsz, want):
    p = 0
    while p < len(body):
        n = sub_len(body, p, idsz)
        if n is None or p + n > len(body):
            return p
        if p + n > want:
            return p
        p += n
    return p


def hprof_records(data):
    """(header length, id size, [(tag, start, body start, end)]) of a dump."""
    z = data.find(b"\0")
    if z < 0 or z + 13 > len(data):
        return None
    idsz = struct.unpack_from(">I", data, z + 1)[0]
    p = z + 13
    recs = []
    while p + 9 <= len(data):
        tag, _, n = struct.unpack_from(">BII", data, p)
        recs.append((tag, p, p + 9, min(p + 9 + n, len(data))))
        p += 9 + n
    return z + 13, idsz, recs


def shrink_hprof(data, budget):
    """A real dump with each heap dump (segment) cut to its first
    sub-records, record lengths fixed, so the whole fits in budget."""
    parsed = hprof_records(data)
    if not parsed:
        return None
    hlen, idsz, recs = parsed
    out = bytearray(data[:hlen])
    heap_recs = [r for r in recs if r[0] in (0x0C, 0x1C)]
    other = sum(r[3] - r[1] for r in recs if r[0] not in (0x0C, 0x1C))
    if other + hlen > budget // 2:
        # too many strings etc.: keep the first half of non-heap records
        keep_other = budget // 2
    else:
        keep_other = other
    per_heap = max(512, (budget - hlen - min(other, keep_other)) // max(1, len(heap_recs)))
    used_other = 0
    for tag, start, bstart, end in recs:
        if tag in (0x0C, 0x1C):
            body = data[bstart:end]
            cut = sub_boundary(body, idsz, per_heap)
            out += struct.pack(">BII", tag, 0, cut) + body[:cut]
        else:
            if used_other + (end - start) > keep_other:
                continue
            used_other += end - start
            out += data[start:end]
        if len(out) > budget:
            break
    return bytes(out[:budget])


def hide_paths(data):
    """Memory map paths of a gperftools profile made absent."""
    for mark in (b"MAPPED_LIBRARIES:", b"--- Memory map:"):
        i = data.find(mark)
        if i >= 0:
            return data[:i] + re.sub(rb"(?m)([ \t])/", rb"\1/nonexistent/", data[i:])
    return data


# ---------------------------------------------------------------- main


def main():
    fmt, outdir, srcs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    seeds = Seeds(outdir)
    files = files_of(srcs)
    kept_real_paths = False
    for f in files:
        data = open(f, "rb").read()
        base = os.path.basename(f)
        if fmt == "gperftools" and len(data) <= MAX:
            # Libraries named in a profile's memory map are opened and their
            # symbols read (symbolize.c): slow, and outside the input.  One
            # seed keeps its real paths; the others name absent files.
            hidden = hide_paths(data)
            if hidden != data and kept_real_paths:
                data = hidden
            elif hidden != data:
                kept_real_paths = True
        if len(data) <= MAX:
            seeds.add(base, data)
        else:
            for k in (4096, 32768, MAX):
                seeds.add("%s.head%d" % (base, k), data[:k])
        if fmt == "hprof" and data.startswith(b"JAVA PROFILE") and len(data) > MAX:
            small = shrink_hprof(data, MAX)
            if small:
                seeds.add(base + ".shrunk", small)
            small = shrink_hprof(data, 16384)
            if small:
                seeds.add(base + ".shrunk16k", small)
    if fmt == "hprof":
        for idsz in (4, 8):
            seeds.add("gen-id%d.hprof" % idsz, hprof_dump(idsz=idsz))
            seeds.add("gen-id%d-2snaps.hprof" % idsz, hprof_dump(idsz=idsz, snapshots=2))
            seeds.add("gen-id%d-jdk9.hprof" % idsz, hprof_dump(idsz=idsz, jdk9_strings=True))
        seeds.add("gen-101-heapdump.hprof",
                  hprof_dump(version=b"JAVA PROFILE 1.0.1", idsz=4, segments=False))
        seeds.add("gen-android.hprof",
                  hprof_dump(version=b"JAVA PROFILE 1.0.3", idsz=4, android=True))
        seeds.add("gen-short-instance-last.hprof", short_instance_last())
    # Series: consecutive small files of one source dir, joined.
    if fmt == "gperftools":
        heaps = [f for f in files if os.path.getsize(f) <= MAX // 3 and
                 b"heap" in open(f, "rb").read(256)]
        for a, b in zip(heaps, heaps[1:]):
            seeds.add("series-%s+%s" % (os.path.basename(a), os.path.basename(b)),
                      hide_paths(open(a, "rb").read()) + SPLIT + hide_paths(open(b, "rb").read()))
    print("mkseeds %s: %d seeds in %s" % (fmt, seeds.n, outdir))


if __name__ == "__main__":
    main()
