#!/usr/bin/env python3
"""mksnap.py OUT - writes a small V8 heap snapshot by hand, shaped to reach
the corners of DevTools' rules that a Node.js heap never shows: DOM nodes
V8 marks attached or detached (and natives they reach), a Window behind a
root shortcut, "(Document DOM trees)", a WeakMap entry (the table's and the
key's internal edges to a value), a node held only weakly, two nodes that
hold only each other, a shortcut not from the root, a self edge, arrays
with one owner and with two, an edge from outside the page into it, and
plain objects of a few shapes ("interfaces").  The test does not check it
against values of its own: DevTools' code (devtools_oracle.mjs) says what
every node's class, shallow size, retained size and dominator are."""
import json
import sys

NODE_TYPES = ["hidden", "array", "string", "object", "code", "closure", "regexp", "number",
              "native", "synthetic", "concatenated string", "sliced string", "symbol",
              "bigint", "object shape"]
EDGE_TYPES = ["context", "element", "property", "internal", "hidden", "shortcut", "weak"]


class Snap:
    def __init__(self):
        self.strings, self.index = [], {}
        self.nodes, self.edges = [], {}

    def s(self, text):
        if text not in self.index:
            self.index[text] = len(self.strings)
            self.strings.append(text)
        return self.index[text]

    def node(self, typ, name, size, detached=0):
        nid = 2 * len(self.nodes) + 1
        self.nodes.append([NODE_TYPES.index(typ), self.s(name), nid, size, detached])
        self.edges[len(self.nodes) - 1] = []
        return len(self.nodes) - 1

    def edge(self, a, typ, name, b):
        ni = name if typ in ("element", "hidden") else self.s(name)
        self.edges[a].append([EDGE_TYPES.index(typ), ni, b])

    def dump(self):
        nodes, edges = [], []
        for i, (t, n, nid, size, det) in enumerate(self.nodes):
            nodes += [t, n, nid, size, len(self.edges[i]), 0, det]
            for (et, en, to) in self.edges[i]:
                edges += [et, en, to * 7]
        meta = {"node_fields": ["type", "name", "id", "self_size", "edge_count",
                                "trace_node_id", "detachedness"],
                "node_types": [NODE_TYPES, "string", "number", "number", "number", "number",
                               "number"],
                "edge_fields": ["type", "name_or_index", "to_node"],
                "edge_types": [EDGE_TYPES, "string_or_number", "node"],
                "trace_function_info_fields": [], "trace_node_fields": [],
                "sample_fields": [], "location_fields": []}
        return json.dumps({"snapshot": {"meta": meta, "node_count": len(self.nodes),
                                        "edge_count": len(edges) // 3,
                                        "trace_function_count": 0},
                           "nodes": nodes, "edges": edges, "trace_function_infos": [],
                           "trace_tree": [], "samples": [], "locations": [],
                           "strings": self.strings}, separators=(',', ':'))


def build():
    s = Snap()
    root = s.node("synthetic", "", 0)
    gc = s.node("synthetic", "(GC roots)", 0)
    strong = s.node("synthetic", "(Strong roots)", 0)
    win = s.node("object", "Window / https://example.org", 100)
    trees = s.node("synthetic", "(Document DOM trees)", 0)
    doc = s.node("native", "HTMLDocument", 200, detached=1)
    body = s.node("native", "<body class=main>", 50)
    div = s.node("native", "<div id=gone>", 60, detached=2)
    text = s.node("native", "Text", 20)
    wrapper = s.node("object", "HTMLDivElement", 30)
    s.edge(root, "element", 1, gc)
    s.edge(root, "shortcut", "window", win)
    s.edge(root, "element", 2, trees)
    s.edge(gc, "element", 1, strong)
    s.edge(trees, "element", 1, doc)
    s.edge(doc, "element", 1, body)
    s.edge(div, "element", 1, text)
    s.edge(div, "internal", "wrapper", wrapper)
    s.edge(wrapper, "internal", "node", div)
    s.edge(win, "property", "lost", wrapper)
    # plain objects of three shapes, an owned and a shared array
    objs = []
    for k, props in enumerate([("x", "y")] * 4 + [("x", "y", "z")] * 3 + [("a,b",)] +
                              [("q",)]):
        o = s.node("object", "Object", 24 + k)
        s.edge(win, "property", "o%d" % k, o)
        for p in props:
            v = s.node("number", "heap number", 16)
            s.edge(o, "property", p, v)
        objs.append(o)
    owned = s.node("array", "(object elements)", 400)
    s.edge(objs[0], "internal", "elements", owned)
    shared = s.node("array", "(object elements)", 300)
    s.edge(objs[1], "internal", "elements", shared)
    s.edge(objs[2], "internal", "elements", shared)
    hid = s.node("hidden", "system / PropertyArray", 80)
    s.edge(objs[3], "internal", "properties", hid)
    # a WeakMap: key and table both reach the value
    wm = s.node("object", "WeakMap", 32)
    table = s.node("array", "system / EphemeronHashTable", 64)
    key = s.node("object", "Key", 16)
    val = s.node("object", "Value", 500)
    s.edge(win, "property", "wm", wm)
    s.edge(win, "property", "key", key)
    s.edge(wm, "internal", "table", table)
    name = "1 / part of key (Key @%d) -> value (Value @%d) pair in WeakMap (table @%d)" % (
        2 * key + 1, 2 * val + 1, 2 * table + 1)
    s.edge(table, "internal", name, val)
    s.edge(key, "internal", name, val)
    s.edge(table, "weak", 1, key) if False else s.edge(table, "weak", "key", key)
    # held only weakly, and a pair holding only each other
    weakly = s.node("object", "Weakly", 40)
    s.edge(win, "weak", "w", weakly)
    a = s.node("object", "Pair", 10)
    b = s.node("object", "Pair", 12)
    s.edge(a, "property", "other", b)
    s.edge(b, "property", "other", a)
    # outside the page: a debugger object reaching into it; a self edge; a
    # shortcut not from the root
    dbg = s.node("object", "Debugger", 8)
    s.edge(strong, "element", 1, dbg)
    s.edge(dbg, "property", "peek", objs[4])
    s.edge(dbg, "property", "self", dbg)
    s.edge(dbg, "shortcut", "cut", val)
    code = s.node("code", "(code)", 90)
    s.edge(strong, "element", 2, code)
    clo = s.node("closure", "fn", 32)
    s.edge(win, "property", "fn", clo)
    s.edge(clo, "internal", "code", code)
    return s


if __name__ == '__main__':
    with open(sys.argv[1], 'w', encoding='utf-8') as f:
        f.write(build().dump())
