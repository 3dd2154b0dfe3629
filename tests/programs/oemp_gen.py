#!/usr/bin/env python3
"""oemp_gen.py - OpenEdge memory profiler recordings (.oemp) with known truth.

No public recording exists, so heapfs is tested on recordings written here
from the format as docs/formats.md (section 5) describes it, from a
scenario whose every consequence the generator knows:

  oemp_gen.py gen OUT.oemp [--version 1|2] [--snapshots N] [--per-snap K]
                  [--seed S] [--damage] [--truncate] [--summary-only]
      writes OUT.oemp and OUT.truth.json.
  oemp_gen.py check MOUNTPOINT OUT.truth.json [--label L] [--pprof N]
      compares a mounted recording with its truth; prints TAP-style
      "ok - ..." / "not ok - ..." lines (and "# ..." details).

The scenario: a call tree that grows (nested up to ~10 deep) over ABL
procedures, classes and methods (overloaded ones too); objects of every
kind of name: procedures and ABL classes named by SrcId (ABLNameList),
built-ins by BioTypId (BObjCatalog) or by NameId for generics
("Progress.Collections.List<Order>"), DB connections, named widget pools,
temp-tables and datasets by NameId (OtherNameList), unnamed ones; names with
spaces and doubled quotes, and the unknown value ? as a name; objects
created, resized (ChangedAppObjData in version 2, AppObjData again in
version 1), given a temp-table number later, scoped to others, deleted;
AppObjIds above 2^32; PlatObjData every snapshot.

--damage adds an AppObjData line with 15 columns (not read: the object does
not exist), one with 17 (read), and ? for the bytes of a new object (0
bytes).  --truncate cuts the file in the middle of a line of the last
snapshot's DeletedObjs section: that snapshot keeps its creations and
changes and the deletions before the cut.

The truth (JSON): the recording's header facts, every object (type, name,
creation stack as heapfs prints it, scope, lifetime, size and temp-table
number by snapshot), every call-tree node's stack, and per snapshot the
events and the platform memory.  With --summary-only (benchmarks) only the
per-snapshot live counts and bytes.

tests/fixtures/gen-v1.oemp and tests/fixtures/gen-v2-damaged.oemp (seeds for the
fuzzer and the truncation test) were made with
  oemp_gen.py gen tests/fixtures/gen-v1.oemp --version 1 --snapshots 6 --per-snap 6 --seed 3
  oemp_gen.py gen tests/fixtures/gen-v2-damaged.oemp --version 2 --snapshots 6 --per-snap 6 \
      --seed 4 --damage --truncate

Frames are "NAME:LINE", leaf first: the leaf is the object's SrcLine in its
node's source; each parent frame's line is the child's ParentLine.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

# ---- the catalogs ------------------------------------------------------------

PLATFORM = [("Memory Profiler", 1), ("General", 2), ("RCode Directory (-D)", 3),
            ("Temp-table DB (-Bt)", 4), ("Runtime Stack (-s)", 5), ("Compiler", 6),
            ("CPU Profiler", 7), ("Record Buffers (-l)", 8)]
# (name, AppObjTypeId, how it is named)
TYPES = [("Procedure", 1, "proc"), ("OOABL Obj", 2, "class"), ("OOABL Static Obj", 3, "class"),
         ("Reusable Obj", 4, "class"), ("OO Builtin", 5, "builtin"), ("DB Connection", 6, "db"),
         ("Named Widget Pool", 7, "pool"), ("Widget Pool", 8, None), ("Dynamic Query", 9, None),
         ("Temp-Table", 10, "tt"), ("Dataset", 11, "ds"), ("MEMPTR", 12, None),
         ("Buffer", 13, None)]
TYPE_WEIGHTS = [6, 8, 1, 2, 8, 1, 2, 3, 6, 5, 2, 3, 6]
BUILTINS = [("Progress.Lang.Object", 1), ("Progress.Lang.Class", 2),
            ("Progress.Json.ObjectModel.JsonObject", 3), ("Progress.Collections.List", 4),
            ("Progress.Collections.HashMap", 5)]
PROCS = ["main.p", "orders/process.p", "util/strings.p", 'Say "Hi" proc.p', "name with spaces.p",
         "rpt/monthly report.p", "startup.p"]
CLASSES = ["MyClass.cls", "acme.OrderMgr.cls", 'Quote"d.cls', "acme.Customer.cls",
           "acme.inv.Stock Item.cls"]
METHODS = [("ProcessOrder acme.OrderMgr.cls", 40), ("Run MyClass.cls", 12), ("Add MyClass.cls", 30),
           ("Add MyClass.cls", 55), ("GetName acme.Customer.cls", 88)]
OTHER = {
    "db": ["sports2000", 'db "quoted" name'],
    "pool": ["my pool", "pool 2", "?"],
    "tt": ["ttOrder", 'tt "Line" items', "ttCustomer"],
    "ds": ["dsOrder", "ds with spaces"],
    "builtin": ["Progress.Collections.List<Order>",
                "Progress.Collections.HashMap<character, Order>"],
}
ABL_KINDS = ("proc", "class")


def q(s):
    """ABL EXPORT form of a string: quoted, "" for a quote; None -> ?."""
    if s is None:
        return "?"
    return '"' + s.replace('"', '""') + '"'


class LiveSet:
    """Ids with O(1) add, remove and random choice."""

    def __init__(self):
        self.ids, self.pos = [], {}

    def add(self, i):
        self.pos[i] = len(self.ids)
        self.ids.append(i)

    def remove(self, i):
        k = self.pos.pop(i)
        last = self.ids.pop()
        if last != i:
            self.ids[k] = last
            self.pos[last] = k

    def __len__(self):
        return len(self.ids)


class Scenario:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.version = a.version
        self.out = []          # lines of the file
        self.marks = {}        # name -> line index (for --truncate)
        self.next_src = 1
        self.next_name = 1
        self.next_node = 1
        self.next_id = 4294967296 * 3 + 1000  # ids beyond 32 bits
        self.src = {}          # SrcNameId -> (name, startline)
        self.src_of = {}       # (name, startline) -> SrcNameId
        self.other_of = {}     # name -> NameId
        self.nodes = {}        # NodeId -> (src, parent, pline)
        self.depths = {}
        self.live = {}         # id -> object dict
        self.live_ids = LiveSet()
        self.owners = LiveSet()  # live objects of the ABL-named kinds (scope targets)
        self.live_bytes = 0
        self.objs = {}         # id -> truth dict (not in summary mode)
        self.snaps = []        # truth per snapshot
        self.ghosts = []       # ids of lines that must not be read
        self.pending = None    # sections being built for this snapshot

    # -- names and nodes (they only grow, and are published when first used)
    def src_id(self, name, line=0):
        k = (name, line)
        if k not in self.src_of:
            i = self.next_src
            self.next_src += 1
            self.src_of[k] = i
            self.src[i] = k
            self.pending["abln"].append(f"{i} {q(name)} {line}")
        return self.src_of[k]

    def name_id(self, name):
        if name not in self.other_of:
            i = self.next_name
            self.next_name += 1
            self.other_of[name] = i
            self.pending["othn"].append(f"{i} {q(None if name == '?' else name)}")
        return self.other_of[name]

    def all_names(self):
        """Publishes every name at once (a cut recording: version 1 loses
        the name lists of its last snapshot, so they must come earlier)."""
        for n in PROCS + CLASSES:
            self.src_id(n)
        for n, line in METHODS:
            self.src_id(n, line)
        for names in OTHER.values():
            for n in names:
                self.name_id(n)

    def add_node(self, parent):
        r = self.rng
        if r.random() < 0.4:
            name, line = r.choice(METHODS)
        else:
            name, line = r.choice(PROCS + CLASSES), 0
        s = self.src_id(name, line)
        i = self.next_node
        self.next_node += 1
        pline = r.randint(1, 600) if parent else 0
        self.nodes[i] = (s, parent, pline)
        self.depths[i] = self.depths[parent] + 1 if parent else 1
        self.pending["nodes"].append(f"{i} {s} {parent} {pline}")
        return i

    def label(self, src, line):
        name = self.src[src][0]
        return f"{name}:{line}" if line > 0 else name

    def stack(self, node, line):
        out = []
        while node:
            s, parent, pline = self.nodes[node]
            out.append(self.label(s, line))
            line, node = pline, parent
        return out

    # -- objects
    def new_object(self, seq, now):
        r = self.rng
        tname, tid, how = r.choices(TYPES, TYPE_WEIGHTS)[0]
        oid = self.next_id
        self.next_id += r.randint(1, 7)
        node = r.randint(1, self.next_node - 1)
        line = r.randint(1, 999)
        src = nameid = bio = 0
        name = ""
        if how == "proc":
            name = r.choice(PROCS)
            src = self.src_id(name)
        elif how == "class":
            name = r.choice(CLASSES)
            src = self.src_id(name)
        elif how == "builtin":
            if r.random() < 0.5:
                name = r.choice(OTHER["builtin"])
                nameid = self.name_id(name)
                bio = 4 if "List" in name else 5
            else:
                name, bio = r.choice(BUILTINS)
        elif how:
            name = r.choice(OTHER[how])
            nameid = self.name_id(name)
        scope = 0
        if how not in ABL_KINDS and len(self.owners) and r.random() < 0.5:
            scope = r.choice(self.owners.ids)
        mem = r.randint(1, 64) * 16
        o = {"id": oid, "type": tname, "tid": tid, "how": how, "name": name, "mem": mem,
             "abk": mem * 2, "pool": mem, "ctime": now, "node": node, "line": line, "src": src,
             "scope": scope, "tt": 0, "nameid": nameid, "bio": bio}
        self.live[oid] = o
        self.live_ids.add(oid)
        if how in ABL_KINDS:
            self.owners.add(oid)
        self.live_bytes += mem
        if not self.a.summary_only:
            self.objs[oid] = {"type": tname, "name": name, "stack": self.stack(node, line),
                              "scope": scope, "created": seq, "deleted": None,
                              "sizes": [[seq, mem]], "tt": [[seq, 0]], "ctime": now}
        return o

    def set_mem(self, o, seq, mem):
        self.live_bytes += mem - o["mem"]
        o["mem"] = mem
        if not self.a.summary_only:
            sizes = self.objs[o["id"]]["sizes"]
            if sizes[-1][0] == seq:
                sizes[-1] = [seq, mem]
            else:
                sizes.append([seq, mem])

    def aobj_line(self, o):
        return (f"{o['id']} {o['tid']} {o['mem']} {o['abk']} {o['pool']} {o['ctime']} {o['node']} "
                f"{o['line']} {o['src']} 0 {o['scope']} {o['tt']} {o['nameid']} 0 {o['bio']} 0")

    def count(self, fixed, rate, n):
        if fixed is not None:
            return min(fixed, n)
        return min(n, int(rate * n + self.rng.random()))

    # -- one snapshot
    def snapshot(self, i, seq, last):
        r, a = self.rng, self.a
        self.pending = {k: [] for k in ("pcat", "acat", "bcat", "pdata", "abln", "othn", "nodes",
                                         "aobj", "chg", "del")}
        p = self.pending
        cut = last and a.truncate
        t0 = i * 1_000_000
        now = t0 + 1000
        if i == 0:
            p["pcat"] = [f"{q(n)} {k}" for n, k in PLATFORM]
            p["acat"] = [f"{q(n)} {k}" for n, k, _ in TYPES]
            p["bcat"] = [f"{q(n)} {k}" for n, k in BUILTINS]
            self.add_node(0)
            if a.truncate:
                self.all_names()
        # the call tree grows, deeper and deeper (not in a cut snapshot:
        # its late sections are lost, in version 1 the nodes too)
        if not cut:
            for _ in range(r.randint(0, 3)):
                if r.random() < 0.5:
                    parent = max(r.sample(range(1, self.next_node), min(4, self.next_node - 1)),
                                 key=lambda n: self.depths[n])
                else:
                    parent = r.randint(1, self.next_node - 1)
                if self.depths[parent] < 12:
                    self.add_node(parent)
        ev = {"seq": seq, "created": [], "changed": [], "deleted": []}
        n = len(self.live_ids)
        ndel = self.count(a.del_per_snap, a.del_rate, n)
        if cut:
            ndel = max(ndel, min(n, 2))  # a line to cut in the middle of
        nchg = self.count(a.chg_per_snap, a.chg_rate, n - ndel)
        victims = r.sample(self.live_ids.ids, ndel + nchg)
        doomed, changed = victims[:ndel], victims[ndel:]
        # a few of the doomed change first (version 2: changed, then deleted)
        changed += [d for d in doomed if r.random() < 0.1]
        for oid in changed:
            o = self.live[oid]
            before = o["mem"]
            self.set_mem(o, seq, max(16, o["mem"] + r.choice([-2, -1, 1, 2, 3, 8]) * 16))
            if o["how"] == "tt" and o["tt"] == 0 and r.random() < 0.5:
                o["tt"] = r.randint(1, 300)
                if not a.summary_only:
                    self.objs[oid]["tt"].append([seq, o["tt"]])
            if self.version >= 2:
                p["chg"].append(f"{oid} {o['tid']} {o['mem']} {o['abk']} {o['pool']} {o['tt']}")
            else:
                p["aobj"].append(self.aobj_line(o))
            if not a.summary_only:
                ev["changed"].append([oid, before, o["mem"]])
        for _ in range(a.per_snap):
            now += r.randint(1, 900)
            o = self.new_object(seq, now)
            p["aobj"].append(self.aobj_line(o))
            if not a.summary_only:
                ev["created"].append([o["id"], o["mem"]])
        if a.damage and i == 2:
            # 15 columns: not read; 17: read; ? bytes: 0
            gid = self.next_id
            self.next_id += 5
            self.ghosts.append(gid)
            p["aobj"].append(f"{gid} 9 100 0 0 {now} 1 1 0 0 0 0 0 0 0")
            o = self.new_object(seq, now + 1)
            p["aobj"].append(self.aobj_line(o) + " 77")
            ev["created"].append([o["id"], o["mem"]])
            o = self.new_object(seq, now + 2)
            self.set_mem(o, seq, 0)
            line = self.aobj_line(o).split(" ")
            line[2] = "?"
            p["aobj"].append(" ".join(line))
            ev["created"].append([o["id"], 0])
        dels = []
        for oid in doomed:
            now += r.randint(1, 900)
            dels.append((oid, self.live[oid]["mem"], now))
        keep = len(dels)
        if cut and dels:
            keep = max(1, len(dels) // 2)  # the next line is cut in the middle
        for oid, mem, dt in dels[:keep]:
            o = self.live.pop(oid)
            self.live_ids.remove(oid)
            if o["how"] in ABL_KINDS:
                self.owners.remove(oid)  # objects scoped to it keep a dangling scope
            self.live_bytes -= mem
            if not a.summary_only:
                self.objs[oid]["deleted"] = seq
                ev["deleted"].append([oid, mem, dt])
        p["del"] = [f"{oid} {dt}" for oid, _, dt in dels]
        # platform memory: every id, every snapshot
        plat = {}
        for name, k in PLATFORM:
            mem = 100000 * k + r.randint(0, 5000) * 8
            p["pdata"].append(f"{k} {mem} {mem + 4096} {mem}")
            plat[name] = mem
        cpu = r.choice([f"{r.uniform(0, 99):.2f}", ".5", "?"])
        tag = ["_AUTO", "_REQ_END", "_PROG"][i % 3]
        hdr = [str(self.version), "3277", str(seq), q("2022-02-01T08:01:39.967+05:00"), q("AS-4"),
               q(tag), q(f"ROOT:w:{i:08d}"), q(""), str(t0), q("2c4e7d1a-90ab-4cde-8f01-23456789abcd"),
               q("." if i == 0 else ""), str(4096 * i), q("oepas1"), q("/web/orders"), cpu]
        if self.version >= 2:
            hdr += [q("12.8.3"), q("oepas1"), q('nightly "soak" run')]
        trl = [str(t0 + 999_000), str(len(self.live)), str(self.live_bytes),
               str(sum(plat.values())), str(len(self.live)), "3", "0"]
        if self.version >= 2:
            trl += ["0", "0", q(tag), str(seq)]
        order = (["pcat", "acat", "bcat", "pdata", "abln", "othn", "nodes", "aobj", "chg", "del"]
                 if self.version >= 2 else
                 ["pcat", "acat", "bcat", "aobj", "pdata", "del", "nodes", "abln", "othn"])
        self.out.append(" ".join(hdr))
        self.out.append(".")
        for sec in order:
            if sec == "del" and cut:
                self.out.extend(p["del"][:keep])
                self.marks["cut"] = len(self.out)  # this line is cut
                self.out.extend(p["del"][keep:])
            else:
                self.out.extend(p[sec])
            self.out.append(".")
        self.out.append(" ".join(trl))
        self.out.append(".")
        snap = {"seq": seq, "live": len(self.live), "live_bytes": self.live_bytes,
                "complete": not cut}
        if not a.summary_only:
            snap.update(ev)
            snap["platform"] = plat
            snap["tag"] = tag
            snap["cpu"] = cpu
        self.snaps.append(snap)

    def write(self, path):
        text = "\n".join(self.out) + "\n"
        if "cut" in self.marks:
            k = self.marks["cut"]
            pos = len("\n".join(self.out[:k])) + 1
            text = text[:pos + max(1, len(self.out[k]) // 2)]
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)

    def truth(self):
        t = {"version": self.version, "process": "3277",
             "uuid": "2c4e7d1a-90ab-4cde-8f01-23456789abcd", "snapshots": self.snaps,
             "damage": self.a.damage, "truncate": self.a.truncate}
        if not self.a.summary_only:
            t["objects"] = {str(k): v for k, v in self.objs.items()}
            t["traces"] = {str(n): self.stack(n, 0) for n in self.nodes}
            t["ghosts"] = [str(g) for g in self.ghosts]
        return t


def gen(a):
    s = Scenario(a)
    seq = a.first_seq
    for i in range(a.snapshots):
        s.snapshot(i, seq, i == a.snapshots - 1)
        seq += s.rng.choice([1, 1, 1, 2])  # sequence numbers may skip
    s.write(a.out)
    base = a.out[:-5] if a.out.endswith(".oemp") else a.out
    with open(base + ".truth.json", "w") as f:
        json.dump(s.truth(), f, separators=(",", ":"))


# ---- check: compare a mount with the truth --------------------------------------

class Checker:
    def __init__(self, mnt, label):
        self.mnt, self.label = mnt, label
        self.failed = 0

    def result(self, ok, what, details=()):
        print(f"{'ok' if ok else 'not ok'} - {self.label}: {what}")
        if not ok:
            self.failed += 1
            for d in list(details)[:8]:
                print(f"#   {d}")

    def read(self, *parts):
        with open(os.path.join(self.mnt, *parts), encoding="utf-8", errors="replace") as f:
            return f.read()


def kv(text):
    out = {}
    for line in text.splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            out.setdefault(k, v)
    return out


def size_at(obj, seq, key="sizes"):
    v = None
    for s, m in obj[key]:
        if s <= seq:
            v = m
    return v


def live_at(truth, seq):
    for i, o in truth["objects"].items():
        if o["created"] <= seq and (o["deleted"] is None or seq < o["deleted"]):
            yield i, o


def check(a):
    truth = json.load(open(a.truth))
    c = Checker(a.mnt, a.label)
    snaps = truth["snapshots"]
    seqs = [str(s["seq"]) for s in snaps]
    listed = sorted(os.listdir(os.path.join(a.mnt, "snapshots")), key=int)
    c.result(listed == seqs, f"snapshots/ lists the {len(seqs)} sequence numbers",
             [f"got {listed[:10]}"])
    c.result(os.readlink(os.path.join(a.mnt, "latest")) == f"snapshots/{seqs[-1]}",
             "latest points at the last snapshot")
    info = kv(c.read("info"))
    c.result(info.get("snapshots") == str(len(snaps)) and info.get("process") == truth["process"]
             and info.get("uuid") == truth["uuid"] and info.get("version") == str(truth["version"]),
             "info: version, process, uuid, snapshot count", [str(info)])
    # per-snapshot totals (all modes)
    bad = []
    for s in snaps:
        si = kv(c.read("snapshots", str(s["seq"]), "info"))
        if si.get("live objects") != str(s["live"]) or si.get("live bytes") != str(s["live_bytes"]):
            bad.append(f"{s['seq']}: {si.get('live objects')} {si.get('live bytes')} != "
                       f"{s['live']} {s['live_bytes']}")
        want_complete = "yes" if s["complete"] else "no"
        if not si.get("complete", "").startswith(want_complete):
            bad.append(f"{s['seq']}: complete: {si.get('complete')}")
    c.result(not bad, "live objects and bytes of every snapshot after replay", bad)
    errors = c.read("errors")
    if truth["damage"] or truth["truncate"]:
        want = []
        if truth["damage"]:
            want += ["15 columns, expected 16; line skipped", "17 columns, expected 16"]
        if truth["truncate"]:
            want += ["the file ends in the middle of this line", "the recording ends inside snapshot"]
        miss = [w for w in want if w not in errors]
        c.result(not miss, "errors names each damage", miss + errors.splitlines()[:5])
    else:
        c.result(errors == "", "errors is empty for a clean recording", errors.splitlines())
    if "objects" not in truth:
        sys.exit(1 if c.failed else 0)
    objs = truth["objects"]

    # traces
    bad = []
    for n, frames in truth["traces"].items():
        want = f"TRACE {n}:\n" + "".join(f"\t{f}\n" for f in frames)
        got = c.read("traces", n)
        if got != want:
            bad.append(f"traces/{n}: {got!r} != {want!r}")
    c.result(not bad, f"traces/N: the {len(truth['traces'])} call-tree stacks", bad)

    hist_bad, list_bad, obj_bad, plat_bad, dir_bad, hdr_bad = [], [], [], [], [], []
    nobj = 0
    for s in snaps:
        seq = s["seq"]
        sd = os.path.join("snapshots", str(seq))
        live = dict(live_at(truth, seq))
        # objects/ lists exactly the live ids
        got_ids = sorted(os.listdir(os.path.join(a.mnt, sd, "objects")), key=int)
        want_ids = sorted(live, key=int)
        if got_ids != want_ids:
            dir_bad.append(f"{seq}: {len(got_ids)} listed, {len(want_ids)} live; "
                           f"extra {sorted(set(got_ids) - set(want_ids))[:3]} "
                           f"missing {sorted(set(want_ids) - set(got_ids))[:3]}")
        for g in truth.get("ghosts", []):
            if os.path.exists(os.path.join(a.mnt, sd, "objects", g)):
                dir_bad.append(f"{seq}: the unreadable line's object {g} exists")
        # histogram
        by_type, by_name = {}, {}
        for i, o in live.items():
            b = size_at(o, seq)
            t = by_type.setdefault(o["type"], [0, 0])
            t[0] += 1
            t[1] += b
            if o["name"]:
                n = by_name.setdefault(f"{o['type']}\t{o['name']}", [0, 0])
                n[0] += 1
                n[1] += b
        got_type, got_name = {}, {}
        for fname, part in (("histogram", got_type), ("histogram-by-name", got_name)):
            for line in c.read(sd, fname).splitlines():
                if line.startswith("#"):
                    continue
                # "objects<TAB>bytes<TAB>type[<TAB>name]" (docs/views.md)
                m = re.match(r"^(\d+)\t(-?\d+)\t(.*)$", line)
                if not m:
                    hist_bad.append(f"{seq}: bad {fname} line {line!r}")
                    continue
                part[m.group(3)] = [int(m.group(1)), int(m.group(2))]
        if got_type != by_type or got_name != by_name:
            diff = [k for k in set(by_type) | set(by_name) | set(got_type) | set(got_name)
                    if by_type.get(k, by_name.get(k)) != got_type.get(k, got_name.get(k))]
            hist_bad.append(f"{seq}: differs for {diff[:4]}")
        # created / changed / deleted
        def rows(name):
            return [l.split("\t") for l in c.read(sd, name).splitlines() if not l.startswith("#")]
        got_c = [[int(r[0]), int(r[1])] for r in rows("created")]
        got_ch = [[int(r[0]), int(r[1]), int(r[2])] for r in rows("changed")]
        got_d = [[int(r[0]), int(r[1]), int(r[2])] for r in rows("deleted")]
        want_c = [[i, size_at(objs[str(i)], seq)] for i, _ in s["created"]]
        if got_c != want_c:
            list_bad.append(f"{seq} created: {got_c[:3]} != {want_c[:3]}")
        if sorted(got_ch) != sorted(s["changed"]):
            list_bad.append(f"{seq} changed: {got_ch[:3]} != {s['changed'][:3]}")
        if got_d != s["deleted"]:
            list_bad.append(f"{seq} deleted: {got_d[:3]} != {s['deleted'][:3]}")
        # platform
        plat = {}
        for line in c.read(sd, "platform").splitlines():
            if not line.startswith("#"):
                f = line.split("\t", 4)
                plat[f[4]] = int(f[1])
        if plat != s["platform"]:
            plat_bad.append(f"{seq}: {plat} != {s['platform']}")
        si = kv(c.read(sd, "info"))
        if si.get("Tag") != s["tag"] or si.get("CPU") != s["cpu"] or si.get("SnapshotSeq") != str(seq):
            hdr_bad.append(f"{seq}: Tag {si.get('Tag')} CPU {si.get('CPU')}")
        # every object of every snapshot (or every k-th in big ones)
        step = max(1, len(live) // a.max_objects) if a.max_objects else 1
        for i in want_ids[::step]:
            if i not in got_ids:
                continue
            o = live[i]
            nobj += 1
            od = os.path.join(sd, "objects", i)
            text = c.read(od, "info")
            k = kv(text)
            want = {"id": i, "type": o["type"], "bytes": str(size_at(o, seq)),
                    "created": f"{o['ctime']} us", "created in snapshot": str(o["created"])}
            if o["name"]:
                want["name"] = o["name"]
            tt = size_at(o, seq, "tt")
            if o["type"] == "Temp-Table" or tt:
                want["temp-table"] = str(tt)
            errs = [f"{kk}: {k.get(kk)!r} != {v!r}" for kk, v in want.items() if k.get(kk) != v]
            if not o["name"] and "name" in k:
                errs.append(f"unexpected name {k['name']!r}")
            stack = c.read(od, "stack")
            if stack != "".join(f"{f}\n" for f in o["stack"]):
                errs.append(f"stack {stack!r} != {o['stack']}")
            link = os.path.join(a.mnt, od, "scope")
            if o["scope"]:
                so = objs[str(o["scope"])]
                so_live = so["created"] <= seq and (so["deleted"] is None or seq < so["deleted"])
                want_scope = f"scope: {o['scope']}" + ("" if so_live else " (not live in this snapshot)")
                if f"\n{want_scope}\n" not in text:
                    errs.append(f"no line {want_scope!r}")
            if o["scope"] and so_live:
                if not os.path.islink(link) or os.readlink(link) != f"../{o['scope']}":
                    errs.append(f"scope link missing or wrong (want ../{o['scope']})")
            elif os.path.lexists(link):
                errs.append("unexpected scope link")
            if errs:
                obj_bad.append(f"{seq}/{i}: " + "; ".join(errs))
    c.result(not dir_bad, "objects/ of every snapshot lists exactly the live objects", dir_bad)
    c.result(not hist_bad, "histogram by type and by name of every snapshot", hist_bad)
    c.result(not list_bad, "created, changed and deleted of every snapshot", list_bad)
    c.result(not plat_bad, "platform of every snapshot", plat_bad)
    c.result(not hdr_bad, "snapshot info: Tag, CPU (incl. ?), SnapshotSeq", hdr_bad)
    c.result(not obj_bad, f"objects/ID/info and scope of {nobj} objects (links only to live objects): type, name, bytes, "
             "creation time, temp-table, stack", obj_bad)

    # stacks.folded: per stack bytes; heap.pprof through google-pprof
    bad = []
    for s in snaps[:: max(1, len(snaps) // 8)]:
        seq = s["seq"]
        want = {}
        for i, o in live_at(truth, seq):
            if size_at(o, seq) > 0:
                key = ";".join(reversed(o["stack"])).replace("\n", " ")
                want[key] = want.get(key, 0) + size_at(o, seq)
        got = {}
        for line in c.read("snapshots", str(seq), "stacks.folded").splitlines():
            k, v = line.rsplit(" ", 1)
            got[k] = got.get(k, 0) + int(v)
        if got != want:
            bad.append(f"{seq}: {len(got)} stacks vs {len(want)}; "
                       f"{[k for k in set(got) | set(want) if got.get(k) != want.get(k)][:2]}")
    c.result(not bad, "stacks.folded: bytes per creation stack", bad)
    if a.pprof:
        bad = []
        for s in snaps[:: max(1, len(snaps) // a.pprof)][: a.pprof]:
            p = os.path.join(a.mnt, "snapshots", str(s["seq"]), "heap.pprof")
            r = subprocess.run(["google-pprof", "--text", "--show_bytes", p],
                               capture_output=True, text=True)
            m = re.search(r"Total: (\d+) B", r.stdout)
            if not m or int(m.group(1)) != s["live_bytes"]:
                bad.append(f"{s['seq']}: {r.stdout[:80]!r} {r.stderr[-200:]!r} != {s['live_bytes']}")
        c.result(not bad, "google-pprof --text heap.pprof totals are the live bytes", bad)
    sys.exit(1 if c.failed else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--version", type=int, default=2, choices=(1, 2))
    g.add_argument("--snapshots", type=int, default=30)
    g.add_argument("--per-snap", type=int, default=20)
    g.add_argument("--del-rate", type=float, default=0.15)
    g.add_argument("--chg-rate", type=float, default=0.15)
    g.add_argument("--del-per-snap", type=int, help="deletions per snapshot (else --del-rate)")
    g.add_argument("--chg-per-snap", type=int, help="size changes per snapshot (else --chg-rate)")
    g.add_argument("--first-seq", type=int, default=1)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--damage", action="store_true")
    g.add_argument("--truncate", action="store_true")
    g.add_argument("--summary-only", action="store_true")
    k = sub.add_parser("check")
    k.add_argument("mnt")
    k.add_argument("truth")
    k.add_argument("--label", default="oemp")
    k.add_argument("--pprof", type=int, default=3, help="snapshots to run google-pprof on")
    k.add_argument("--max-objects", type=int, default=0, help="objects checked per snapshot")
    a = ap.parse_args()
    gen(a) if a.cmd == "gen" else check(a)


if __name__ == "__main__":
    main()
