/*
 * scan.c - one .heapsnapshot file into one snapshot (v8.h): the top-level
 * object's sections read into columns, checked, and what DevTools derives
 * before it computes dominators.
 *
 * Sections: `snapshot` (its `meta` names the fields and types; it must come
 * before `nodes` and `edges`, as V8 always writes it), `nodes`, `edges`,
 * `strings`; the others are skipped (trace data: later).  A file that ends
 * early, or a section that does not read, keeps what came before it, with
 * the problem in `errors`; a file without meta or nodes does not mount.
 *
 * What DevTools does before its dominators (front_end/entrypoints/
 * heap_snapshot_worker/HeapSnapshot.ts, the facts only):
 *   - page-owned nodes: those reachable, over non-weak edges, from the
 *     targets of the root's shortcut edges (the global objects) and of its
 *     element edges to "(Document DOM trees)";
 *   - when the root has an edge to any non-synthetic node (it has in every
 *     Node.js and Chrome snapshot), the self sizes of hidden and array nodes
 *     (and of native "system / ExternalStringData") move to the one node
 *     that owns them (reaches them over non-weak edges through such nodes
 *     only); shared ones keep theirs;
 *   - an edge is essential (counts for dominators) unless it is weak, to
 *     itself, a shortcut not from the root, from a node that is not
 *     page-owned to one that is (not from the root), or the WeakMap
 *     table's own internal edge to a value (the key's edge is kept);
 *   - nodes no essential edge reaches hang under the root.
 */
#include "decoders/v8/v8.h"

#include <string.h>

const char *const v8_node_type_names[V8N_N] = {
    "hidden", "array", "string", "object", "code", "closure", "regexp", "number", "native",
    "synthetic", "concatenated string", "sliced string", "symbol", "bigint", "object shape",
    "wasm object", "?",
};
const char *const v8_edge_type_names[V8E_N] = {
    "context", "element", "property", "internal", "hidden", "shortcut", "weak", "?",
};

enum { F_TYPE, F_NAME, F_ID, F_SIZE, F_EDGES, F_TRACE, F_DETACHED, F_N };
static const char *const node_field_names[F_N] = {
    "type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness",
};
static const char *const tn_field_names[TN_N] = {"id", "function_info_index", "count", "size"};
static const char *const tf_field_names[TF_N] = {"name", "script_name", "line", "column"};
enum { G_TYPE, G_NAME, G_TO, G_N };
static const char *const edge_field_names[G_N] = {"type", "name_or_index", "to_node"};

#define FIELDS_MAX 32
#define TYPES_MAX 64

typedef struct {
    v8_json j;
    hf_dump *d;
    v8_snap *sn;
    GString *tmp;
    bool have_meta, have_nodes;
    uint32_t nf, ef;              /* fields per node, per edge */
    int nfield[F_N], efield[G_N]; /* position of each, -1 */
    int tnfield[TN_N], tffield[TF_N];
    uint32_t tn_per, tf_per;      /* fields per trace node, per function */
    uint8_t ntypes[TYPES_MAX], etypes[TYPES_MAX];
    uint32_t n_ntypes, n_etypes;
    uint64_t past_ntypes, past_etypes; /* type numbers past the meta's lists */
    uint64_t edge_sum;            /* edges the nodes' edge_count add up to */
    uint64_t *ecount;             /* per node, until the edges are read */
} scanner;

static bool key_is(scanner *s, uint64_t at, const char *k)
{
    g_string_truncate(s->tmp, 0);
    return v8_json_decode(s->j.start, (size_t)(s->j.end - s->j.start), at, s->tmp) &&
           strcmp(s->tmp->str, k) == 0;
}

/* ["a","b",...] into field positions (names[i] found at position k). */
static bool read_names(scanner *s, const char *const *names, int n, int *pos, uint32_t *count)
{
    for (int i = 0; i < n; i++)
        pos[i] = -1;
    *count = 0;
    if (!v8_json_expect(&s->j, '['))
        return false;
    if (v8_json_accept(&s->j, ']'))
        return true;
    do {
        uint64_t at;
        if (!v8_json_string(&s->j, &at))
            return false;
        for (int i = 0; i < n; i++)
            if (pos[i] < 0 && key_is(s, at, names[i]))
                pos[i] = (int)*count;
        if (++*count > FIELDS_MAX)
            return v8_json_fail(&s->j, "more than 32 fields in the meta");
    } while (v8_json_accept(&s->j, ','));
    return v8_json_expect(&s->j, ']');
}

/* [["hidden","array",...],"string",...]: the first element's names mapped
 * to V8N_* or V8E_* (unknown: the OTHER value); the rest skipped. */
static bool read_types(scanner *s, const char *const *names, unsigned n_known, uint8_t *map,
                       uint32_t *n)
{
    *n = 0;
    if (!v8_json_expect(&s->j, '[') || !v8_json_expect(&s->j, '['))
        return false;
    if (!v8_json_accept(&s->j, ']')) {
        do {
            uint64_t at;
            if (!v8_json_string(&s->j, &at))
                return false;
            if (*n >= TYPES_MAX)
                return v8_json_fail(&s->j, "more than 64 types in the meta");
            map[*n] = (uint8_t)n_known;
            for (unsigned k = 0; k < n_known; k++)
                if (key_is(s, at, names[k]))
                    map[*n] = (uint8_t)k;
            ++*n;
        } while (v8_json_accept(&s->j, ','));
        if (!v8_json_expect(&s->j, ']'))
            return false;
    }
    while (v8_json_accept(&s->j, ','))
        if (!v8_json_skip(&s->j))
            return false;
    return v8_json_expect(&s->j, ']');
}

static bool read_meta(scanner *s)
{
    if (!v8_json_expect(&s->j, '{'))
        return false;
    if (v8_json_accept(&s->j, '}'))
        return true;
    do {
        uint64_t at;
        if (!v8_json_string(&s->j, &at) || !v8_json_expect(&s->j, ':'))
            return false;
        bool ok;
        if (key_is(s, at, "node_fields"))
            ok = read_names(s, node_field_names, F_N, s->nfield, &s->nf);
        else if (key_is(s, at, "edge_fields"))
            ok = read_names(s, edge_field_names, G_N, s->efield, &s->ef);
        else if (key_is(s, at, "trace_node_fields"))
            ok = read_names(s, tn_field_names, TN_N, s->tnfield, &s->tn_per);
        else if (key_is(s, at, "trace_function_info_fields"))
            ok = read_names(s, tf_field_names, TF_N, s->tffield, &s->tf_per);
        else if (key_is(s, at, "node_types"))
            ok = read_types(s, v8_node_type_names, V8N_OTHER, s->ntypes, &s->n_ntypes);
        else if (key_is(s, at, "edge_types"))
            ok = read_types(s, v8_edge_type_names, V8E_OTHER, s->etypes, &s->n_etypes);
        else
            ok = v8_json_skip(&s->j);
        if (!ok)
            return false;
    } while (v8_json_accept(&s->j, ','));
    return v8_json_expect(&s->j, '}');
}

static bool read_snapshot(scanner *s)
{
    if (!v8_json_expect(&s->j, '{'))
        return false;
    if (v8_json_accept(&s->j, '}'))
        return true;
    do {
        uint64_t at, v;
        if (!v8_json_string(&s->j, &at) || !v8_json_expect(&s->j, ':'))
            return false;
        bool ok = true;
        if (key_is(s, at, "meta")) {
            ok = read_meta(s);
            s->have_meta = ok;
        } else if (key_is(s, at, "node_count")) {
            ok = v8_json_uint(&s->j, &s->sn->meta_nodes);
        } else if (key_is(s, at, "edge_count")) {
            ok = v8_json_uint(&s->j, &s->sn->meta_edges);
        } else if (key_is(s, at, "trace_function_count")) {
            ok = v8_json_uint(&s->j, &v);
            s->sn->trace_functions = (uint32_t)MIN(v, UINT32_MAX);
        } else if (key_is(s, at, "root_index")) {
            ok = v8_json_uint(&s->j, &v);
            s->sn->root = (uint32_t)MIN(v, UINT32_MAX); /* a node index: checked later */
        } else {
            ok = v8_json_skip(&s->j);
        }
        if (!ok)
            return false;
    } while (v8_json_accept(&s->j, ','));
    return v8_json_expect(&s->j, '}');
}

/* Capacity for `hint` records of `per` numbers, no more than the bytes
 * left could hold (two bytes a number at least): a lying count cannot
 * make us allocate more than the file justifies. */
static uint64_t capacity(scanner *s, uint64_t hint, uint32_t per)
{
    uint64_t most = (uint64_t)(s->j.end - s->j.p) / 2 / per + 1;
    return MAX(MIN(hint, most), 16);
}

static void grow_nodes(scanner *s, uint64_t cap)
{
    v8_snap *sn = s->sn;
    sn->type = g_realloc_n(sn->type, cap, 1);
    sn->name = g_realloc_n(sn->name, cap, 4);
    sn->id = g_realloc_n(sn->id, cap, 8);
    sn->raw_size = g_realloc_n(sn->raw_size, cap, 8);
    sn->trace = g_realloc_n(sn->trace, cap, 4);
    sn->detached = g_realloc_n(sn->detached, cap, 1);
    s->ecount = g_realloc_n(s->ecount, cap, 8);
}

static void grow_edges(scanner *s, uint64_t cap)
{
    v8_snap *sn = s->sn;
    sn->etype = g_realloc_n(sn->etype, cap, 1);
    sn->ename = g_realloc_n(sn->ename, cap, 4);
    sn->eto = g_realloc_n(sn->eto, cap, 4);
}

static void put_node(scanner *s, uint64_t n, const uint64_t *val)
{
    v8_snap *sn = s->sn;
    uint64_t t = val[s->nfield[F_TYPE]];
    sn->type[n] = t < s->n_ntypes ? s->ntypes[t] : V8N_OTHER;
    s->past_ntypes += t >= s->n_ntypes;
    sn->name[n] = (uint32_t)MIN(val[s->nfield[F_NAME]], UINT32_MAX);
    sn->id[n] = val[s->nfield[F_ID]];
    sn->raw_size[n] = val[s->nfield[F_SIZE]];
    s->ecount[n] = val[s->nfield[F_EDGES]];
    sn->trace[n] = s->nfield[F_TRACE] >= 0 ? (uint32_t)val[s->nfield[F_TRACE]] : 0;
    sn->detached[n] = s->nfield[F_DETACHED] >= 0 ? (uint8_t)MIN(val[s->nfield[F_DETACHED]], 255)
                                                 : 0;
}

static void put_edge(scanner *s, uint64_t n, const uint64_t *val)
{
    v8_snap *sn = s->sn;
    uint64_t t = val[s->efield[G_TYPE]], to = val[s->efield[G_TO]];
    sn->etype[n] = t < s->n_etypes ? s->etypes[t] : V8E_OTHER;
    s->past_etypes += t >= s->n_etypes;
    sn->ename[n] = (uint32_t)MIN(val[s->efield[G_NAME]], UINT32_MAX);
    sn->eto[n] = to % s->nf == 0 && to / s->nf < sn->n ? (uint32_t)(to / s->nf) : UINT32_MAX;
}

/* A flat array of integers, `per` to a record: each record stored by put
 * (its columns grown by grow, from room for `hint` records); *count gets
 * how many were read whole. */
typedef struct {
    uint32_t per;
    uint64_t hint;
    void (*grow)(scanner *s, uint64_t cap);
    void (*put)(scanner *s, uint64_t n, const uint64_t *val);
    const char *what; /* "node", "edge" */
} records;

static bool read_records(scanner *s, const records *r, uint32_t *count)
{
    uint64_t cap = capacity(s, r->hint, r->per), n = 0;
    r->grow(s, cap);
    uint64_t val[FIELDS_MAX];
    char msg[64];
    bool ok = v8_json_expect(&s->j, '[');
    if (ok && !v8_json_accept(&s->j, ']')) {
        uint32_t k = 0;
        do {
            if (!(ok = v8_json_uint(&s->j, &val[k])))
                break;
            if (++k < r->per)
                continue;
            k = 0;
            if (n == UINT32_MAX - 1) {
                g_snprintf(msg, sizeof msg, "more than 2^32 %ss", r->what);
                ok = v8_json_fail(&s->j, g_intern_string(msg));
                break;
            }
            if (n == cap)
                r->grow(s, cap *= 2);
            r->put(s, n++, val);
        } while (v8_json_accept(&s->j, ','));
        if (ok)
            ok = v8_json_expect(&s->j, ']');
        if (ok && k) {
            g_snprintf(msg, sizeof msg, "the %ss array ends inside a record", r->what);
            ok = v8_json_fail(&s->j, g_intern_string(msg));
        }
    }
    *count = (uint32_t)n;
    return ok;
}

static void grow_funcs(scanner *s, uint64_t cap)
{
    s->sn->tfuncs = g_realloc_n(s->sn->tfuncs, cap, sizeof(v8_tfunc));
}

static void put_func(scanner *s, uint64_t n, const uint64_t *val)
{
    v8_tfunc *f = &s->sn->tfuncs[n];
    f->name = (uint32_t)MIN(val[s->tffield[TF_NAME]], UINT32_MAX);
    f->script = (uint32_t)MIN(val[s->tffield[TF_SCRIPT]], UINT32_MAX);
    f->line = (uint32_t)MIN(val[s->tffield[TF_LINE]], UINT32_MAX);
    f->column = (uint32_t)MIN(val[s->tffield[TF_COLUMN]], UINT32_MAX);
}

static bool traces_readable(scanner *s)
{
    bool ok = s->tn_per >= TN_N + 1 && s->tn_per <= 16 && s->tf_per >= TF_N;
    for (int i = 0; ok && i < TN_N; i++)
        ok = s->tnfield[i] >= 0 && (uint32_t)s->tnfield[i] + 1 < s->tn_per;
    for (int i = 0; ok && i < TF_N; i++)
        ok = s->tffield[i] >= 0;
    return ok;
}

/* trace_function_infos and trace_tree: skipped (a problem) when the meta
 * does not name their fields as V8 does (children last). */
static bool read_traces(scanner *s, bool tree)
{
    bool have = tree ? s->sn->tnodes != NULL : s->sn->tfuncs != NULL;
    if (!traces_readable(s) || have) {
        const uint8_t *p = s->j.p;
        if (v8_json_accept(&s->j, '[') && v8_json_accept(&s->j, ']'))
            return true; /* none: nothing left out */
        s->j.p = p;
        uint64_t at = (uint64_t)(s->j.p - s->j.start);
        bool ok = v8_json_skip(&s->j);
        if (ok && !have)
            hf_problem(s->d, at, "%s: the meta does not name the trace fields: %s left out",
                       s->sn->path, tree ? "trace_tree" : "trace_function_infos");
        return ok;
    }
    if (tree)
        return v8_read_trace_tree(&s->j, s->sn, s->tnfield, s->tn_per);
    records r = {s->tf_per, s->sn->trace_functions, grow_funcs, put_func, "function"};
    return read_records(s, &r, &s->sn->n_tfuncs);
}

static bool read_nodes(scanner *s)
{
    records r = {s->nf, s->sn->meta_nodes, grow_nodes, put_node, "node"};
    bool ok = read_records(s, &r, &s->sn->n);
    s->have_nodes = s->sn->n > 0;
    return ok;
}

static bool read_edges(scanner *s)
{
    v8_snap *sn = s->sn;
    uint64_t want = 0; /* saturating: counts are up to 2^53 each */
    for (uint32_t i = 0; i < sn->n; i++)
        want = MIN(want + MIN(s->ecount[i], UINT32_MAX), (uint64_t)UINT32_MAX << 1);
    s->edge_sum = want;
    records r = {s->ef, want, grow_edges, put_edge, "edge"};
    return read_records(s, &r, &sn->n_edges);
}

static bool read_strings(scanner *s)
{
    v8_snap *sn = s->sn;
    uint64_t cap = capacity(s, 1024, 1), n = 0;
    sn->str_off = g_new(uint64_t, cap);
    bool ok = v8_json_expect(&s->j, '[');
    if (ok && !v8_json_accept(&s->j, ']')) {
        do {
            uint64_t at;
            if (!(ok = v8_json_string(&s->j, &at)))
                break;
            if (n == UINT32_MAX - 1)
                break;
            if (n == cap)
                sn->str_off = g_realloc_n(sn->str_off, cap *= 2, 8);
            sn->str_off[n++] = at;
        } while (v8_json_accept(&s->j, ','));
        if (ok)
            ok = v8_json_expect(&s->j, ']');
    }
    sn->n_strings = (uint32_t)n;
    return ok;
}

static void problem(scanner *s, const char *what)
{
    hf_problem(s->d, s->j.error_at, "%s: %s", s->sn->path, what);
}

/* The top-level object, section by section. */
static bool read_top(scanner *s, GError **err)
{
    const char *path = s->sn->path;
    if (!v8_json_expect(&s->j, '{'))
        goto bad;
    do {
        uint64_t at;
        if (!v8_json_string(&s->j, &at) || !v8_json_expect(&s->j, ':'))
            goto bad;
        bool ok;
        if (key_is(s, at, "snapshot")) {
            ok = read_snapshot(s);
            if (ok && !(s->have_meta && s->nf && s->ef && s->nfield[F_TYPE] >= 0 &&
                        s->nfield[F_NAME] >= 0 && s->nfield[F_ID] >= 0 &&
                        s->nfield[F_SIZE] >= 0 && s->nfield[F_EDGES] >= 0 &&
                        s->efield[G_TYPE] >= 0 && s->efield[G_NAME] >= 0 &&
                        s->efield[G_TO] >= 0)) {
                g_set_error(err, HF_ERROR, HF_ERROR_FORMAT,
                            "%s: the snapshot's meta lacks node_fields type, name, id, "
                            "self_size, edge_count or edge_fields type, name_or_index, "
                            "to_node", path);
                return false;
            }
        } else if (key_is(s, at, "nodes") || key_is(s, at, "edges")) {
            bool nodes = key_is(s, at, "nodes");
            if (!s->have_meta) {
                g_set_error(err, HF_ERROR, HF_ERROR_FORMAT,
                            "%s: %s before the snapshot's meta: not a V8 heap snapshot", path,
                            nodes ? "nodes" : "edges");
                return false;
            }
            if (!nodes && !s->have_nodes) {
                ok = v8_json_skip(&s->j); /* edges of no nodes: nothing to attach */
                if (ok)
                    hf_problem(s->d, at, "%s: edges before nodes: edges left out", path);
            } else {
                ok = nodes ? (s->sn->n ? v8_json_skip(&s->j) : read_nodes(s))
                           : (s->sn->etype ? v8_json_skip(&s->j) : read_edges(s));
            }
        } else if (key_is(s, at, "trace_function_infos") || key_is(s, at, "trace_tree")) {
            ok = read_traces(s, key_is(s, at, "trace_tree"));
        } else if (key_is(s, at, "strings")) {
            ok = s->sn->str_off ? v8_json_skip(&s->j) : read_strings(s);
        } else {
            ok = v8_json_skip(&s->j);
        }
        if (!ok)
            goto bad;
    } while (v8_json_accept(&s->j, ','));
    if (!v8_json_expect(&s->j, '}'))
        goto bad;
    return true;
bad:
    if (!s->have_nodes) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: offset %" G_GUINT64_FORMAT
                    ": %s, before any node", path, s->j.error_at,
                    s->j.error ? s->j.error : "unreadable");
        return false;
    }
    problem(s, s->j.error ? s->j.error : "unreadable");
    return true; /* a partial snapshot */
}

/* Edge index ranges from the nodes' edge counts; edges missing at the end
 * (a cut file) leave the last nodes with fewer. */
static void index_edges(scanner *s)
{
    v8_snap *sn = s->sn;
    sn->first = g_new(uint32_t, (size_t)sn->n + 1);
    uint64_t e = 0;
    for (uint32_t i = 0; i < sn->n; i++) {
        sn->first[i] = (uint32_t)MIN(e, sn->n_edges);
        e = MIN(e + MIN(s->ecount[i], UINT32_MAX), (uint64_t)UINT32_MAX << 1);
    }
    sn->first[sn->n] = (uint32_t)MIN(e, sn->n_edges);
    if (s->edge_sum != sn->n_edges && sn->etype)
        hf_problem_nooff(s->d, "%s: the nodes have %" G_GUINT64_FORMAT " edges, the edges "
                         "array %u%s", sn->path, s->edge_sum, sn->n_edges,
                         s->edge_sum > sn->n_edges ? ": the last nodes lack theirs" : "");
    if (!sn->etype)
        hf_problem_nooff(s->d, "%s: no edges array", sn->path);
    uint64_t bad = 0, bad_name = 0;
    for (uint32_t k = 0; k < sn->n_edges; k++) {
        bad += sn->eto[k] == UINT32_MAX;
        bool indexed = sn->etype[k] == V8E_ELEMENT || sn->etype[k] == V8E_HIDDEN;
        bad_name += !indexed && sn->ename[k] >= sn->n_strings;
    }
    if (bad)
        hf_problem_nooff(s->d, "%s: %" G_GUINT64_FORMAT " edges lead past the nodes array "
                         "(left out)", sn->path, bad);
    if (bad_name)
        hf_problem_nooff(s->d, "%s: %" G_GUINT64_FORMAT " edge names past the strings array",
                         sn->path, bad_name);
    uint64_t bad_node = 0;
    for (uint32_t i = 0; i < sn->n; i++)
        bad_node += sn->name[i] >= sn->n_strings;
    if (bad_node)
        hf_problem_nooff(s->d, "%s: %" G_GUINT64_FORMAT " node names past the strings array",
                         sn->path, bad_node);
    if (sn->meta_nodes != sn->n)
        hf_problem_nooff(s->d, "%s: meta node_count %" G_GUINT64_FORMAT ", nodes %u",
                         sn->path, sn->meta_nodes, sn->n);
    if (s->past_ntypes)
        hf_problem_nooff(s->d, "%s: %" G_GUINT64_FORMAT " nodes have a type past the meta's "
                         "node_types: shown as type \"?\"", sn->path, s->past_ntypes);
    if (s->past_etypes)
        hf_problem_nooff(s->d, "%s: %" G_GUINT64_FORMAT " edges have a type past the meta's "
                         "edge_types: shown as type \"?\"", sn->path, s->past_etypes);
}

bool v8_scan(hf_dump *d, v8_snap *sn, GError **err)
{
    scanner s = {.j = {sn->data, sn->data, sn->data + sn->len}, .d = d, .sn = sn};
    s.tmp = g_string_new(NULL);
    bool ok = read_top(&s, err);
    g_string_free(s.tmp, TRUE);
    if (ok && sn->n == 0) { /* not even the root: nothing to show */
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT,
                    "%s: no nodes: not a heap snapshot, or cut before its first node",
                    sn->path);
        ok = false;
    }
    if (ok) {
        index_edges(&s);
        if (!sn->str_off)
            hf_problem_nooff(d, "%s: no strings array: names are empty", sn->path);
        if (sn->root >= sn->n) {
            hf_problem_nooff(d, "%s: root_index %u past the nodes: node 0 is the root",
                             sn->path, sn->root);
            sn->root = 0;
        }
        v8_link_traces(d, sn);
        v8_derive(d, sn);
    }
    g_free(s.ecount);
    return ok;
}
