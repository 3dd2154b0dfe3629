/*
 * store.c - a V8 snapshot's index file (core/keepstore.h), for one-file
 * mounts: the heap layer's sections (heap/persist.h) and the snapshot's,
 * so that a later mount maps them and reads no JSON.
 *
 * Sections: S_HEAD, the counts and flags; one per column of v8_snap (node
 * and edge arrays, the essential bits, orphans, the allocation call tree
 * and its functions), used in place from the mapping; the strings, as the
 * JSON string tokens of the file (still escaped, so that v8_string decodes
 * them as it decodes the file's) one after the other, and each one's
 * offset.  The strings go in whether the file is gzipped or not: a mount
 * from the index file never reads the snapshot.
 *
 * Checks: the columns whose values index other arrays (types, edge
 * targets and ranges, the essential bits, orphans, the call tree) are
 * checksummed whole (CRC-32), so a damaged one refuses the file; the
 * others (ids, sizes, name indices, string offsets) by samples, as their
 * readers bound every value (v8_string).  Lengths must match the counts.
 *
 * Single-threaded: load inside open, save on the after-mount thread (it
 * only reads the dump).
 */
#include "decoders/v8/v8.h"
#include "decoders/heap/persist.h"
#include "decoders/heap/retained.h"

#include <stddef.h>
#include <string.h>

enum {
    S_HEAD = HF_KEEP_FORMAT, S_TYPE, S_NAME, S_ID, S_RAW_SIZE, S_SIZE, S_TRACE, S_DETACHED,
    S_FIRST, S_ETYPE, S_ENAME, S_ETO, S_ESSENTIAL, S_ORPHANS, S_TNODES, S_TFUNCS, S_STR_OFF,
    S_STRINGS, S_END
};
G_STATIC_ASSERT((int)S_END <= (int)HF_KEEP_SNAP);

/* How many elements a column has. */
enum { C_NODES, C_FIRST, C_EDGES, C_BITS, C_ORPHANS, C_TNODES, C_TFUNCS, C_STRINGS };

typedef struct {
    uint32_t id;
    size_t field; /* offset of the pointer in v8_snap */
    uint8_t elem, count;
    bool whole;   /* CRC-32 of all of it, else samples */
} column;

#define COL(id, f, count, whole) {id, offsetof(v8_snap, f), sizeof *((v8_snap *)0)->f, count, whole}
static const column columns[] = {
    COL(S_TYPE, type, C_NODES, true),        COL(S_NAME, name, C_NODES, false),
    COL(S_ID, id, C_NODES, false),           COL(S_RAW_SIZE, raw_size, C_NODES, false),
    COL(S_SIZE, size, C_NODES, false),       COL(S_TRACE, trace, C_NODES, true),
    COL(S_DETACHED, detached, C_NODES, false), COL(S_FIRST, first, C_FIRST, true),
    COL(S_ETYPE, etype, C_EDGES, true),      COL(S_ENAME, ename, C_EDGES, false),
    COL(S_ETO, eto, C_EDGES, true),          COL(S_ESSENTIAL, essential, C_BITS, true),
    COL(S_ORPHANS, orphans, C_ORPHANS, true), COL(S_TNODES, tnodes, C_TNODES, true),
    COL(S_TFUNCS, tfuncs, C_TFUNCS, true),   COL(S_STR_OFF, str_off, C_STRINGS, false),
};

static uint64_t count_of(const v8_snap *sn, uint8_t count)
{
    switch (count) {
    case C_NODES: return sn->n;
    case C_FIRST: return (uint64_t)sn->n + 1;
    case C_EDGES: return sn->n_edges;
    case C_BITS: return (uint64_t)sn->n_edges / 8 + 1;
    case C_ORPHANS: return sn->n_orphans;
    case C_TNODES: return sn->n_tnodes;
    case C_TFUNCS: return sn->n_tfuncs;
    default: return sn->n_strings;
    }
}

static void **slot(v8_snap *sn, const column *c)
{
    return (void **)((char *)sn + c->field);
}

/* ---- saving ---- */

typedef struct {
    v8_dump *d;
    GByteArray *strings; /* the tokens, one after the other */
    uint64_t *str_off;   /* each one's offset in strings */
} saving;

/* The strings' tokens copied out of the file (a token the scan read is
 * whole: v8_json_string finds its end again). */
static void copy_strings(const v8_snap *sn, saving *sv)
{
    sv->strings = g_byte_array_new();
    sv->str_off = g_new(uint64_t, (size_t)sn->n_strings + 1);
    for (uint32_t i = 0; i < sn->n_strings; i++) {
        v8_json j = {sn->data, sn->data + sn->str_off[i], sn->data + sn->len};
        uint64_t at;
        sv->str_off[i] = sv->strings->len;
        if (v8_json_string(&j, &at))
            g_byte_array_append(sv->strings, sn->data + at, (guint)(j.p - sn->data - at));
    }
}

static void fill(hf_keepw *w, void *ud)
{
    saving *sv = ud;
    v8_snap *sn = g_ptr_array_index(sv->d->snaps, 0);
    hf_heap_save(&sv->d->heap, w);
    GByteArray *b = g_byte_array_new();
    hf_keepb_u32(b, sizeof(v8_tnode));
    hf_keepb_u32(b, sizeof(v8_tfunc));
    hf_keepb_u8(b, sn->gzipped);
    hf_keepb_u8(b, sn->user_roots);
    uint32_t counts[] = {sn->n, sn->root, sn->n_edges, sn->n_orphans, sn->n_detached,
                         sn->n_strings, sn->n_tnodes, sn->n_tfuncs, sn->trace_functions};
    hf_keepb_bytes(b, counts, sizeof counts);
    hf_keepb_u64(b, sn->meta_nodes);
    hf_keepb_u64(b, sn->meta_edges);
    hf_keepb_u64(b, sv->strings->len);
    hf_keepw_add_bytes(w, S_HEAD, b);
    for (size_t i = 0; i < G_N_ELEMENTS(columns); i++) {
        const column *c = &columns[i];
        const void *data = c->id == S_STR_OFF ? sv->str_off : *slot(sn, c);
        uint64_t len = count_of(sn, c->count) * c->elem;
        (c->whole ? hf_keepw_add_crc : hf_keepw_add_big)(w, c->id, data, len);
    }
    hf_keepw_add_big(w, S_STRINGS, sv->strings->data, sv->strings->len);
}

void v8_store_save(hf_dump *base)
{
    v8_dump *d = (v8_dump *)base;
    if (d->store.r || !d->store.paths || !d->store.paths->len)
        return; /* loaded from one, a series, or none wanted */
    saving sv = {d};
    copy_strings(g_ptr_array_index(d->snaps, 0), &sv);
    uint64_t id = hf_keepstore_save(&d->store, base->path, base->data, base->size, fill, &sv);
    if (id) /* results computed from this heap are this file's */
        hf_heap_graphs_source(d->heap.graphs, id);
    g_byte_array_free(sv.strings, TRUE);
    g_free(sv.str_off);
}

/* ---- loading ---- */

static bool load_head(v8_snap *sn, const hf_keepr *r, uint64_t *strings_len)
{
    hf_keepcur c = hf_keepcur_of(r, S_HEAD);
    if (hf_keepcur_u32(&c) != sizeof(v8_tnode) || hf_keepcur_u32(&c) != sizeof(v8_tfunc))
        return false;
    sn->gzipped = hf_keepcur_u8(&c) != 0;
    sn->user_roots = hf_keepcur_u8(&c) != 0;
    uint32_t *counts[] = {&sn->n, &sn->root, &sn->n_edges, &sn->n_orphans, &sn->n_detached,
                          &sn->n_strings, &sn->n_tnodes, &sn->n_tfuncs, &sn->trace_functions};
    for (size_t i = 0; i < G_N_ELEMENTS(counts); i++)
        *counts[i] = hf_keepcur_u32(&c);
    sn->meta_nodes = hf_keepcur_u64(&c);
    sn->meta_edges = hf_keepcur_u64(&c);
    *strings_len = hf_keepcur_u64(&c);
    return c.ok && c.p == c.end && sn->n && sn->root < sn->n && sn->n_orphans <= sn->n &&
           sn->n_detached <= sn->n;
}

/* The columns in place; false when one is missing or of another length. */
static bool map_columns(v8_snap *sn, const hf_keepr *r)
{
    for (size_t i = 0; i < G_N_ELEMENTS(columns); i++) {
        const column *c = &columns[i];
        uint64_t len;
        const uint8_t *p = hf_keepr_section(r, c->id, &len);
        if (!p || len != count_of(sn, c->count) * c->elem)
            return false;
        *slot(sn, c) = (void *)p; /* read-only from here on */
    }
    return sn->first[0] == 0 && sn->first[sn->n] == sn->n_edges;
}

static bool load(const hf_keepr *r, void *ud)
{
    v8_dump *d = ud;
    v8_snap *sn = g_new0(v8_snap, 1);
    sn->path = g_strdup(d->heap.base.path);
    g_ptr_array_add(d->snaps, sn);
    uint64_t len;
    if (load_head(sn, r, &len) && map_columns(sn, r) &&
        (sn->data = hf_keepr_section(r, S_STRINGS, &sn->len)) && sn->len == len &&
        hf_heap_load(&d->heap, r)) {
        v8_heap_hooks(&d->heap);
        return true;
    }
    v8_store_unmap(d);
    return false;
}

bool v8_store_load(v8_dump *d)
{
    return hf_keepstore_load(&d->store, load, d);
}

void v8_store_unmap(v8_dump *d)
{
    for (guint s = 0; s < d->snaps->len; s++) {
        v8_snap *sn = g_ptr_array_index(d->snaps, s);
        for (size_t i = 0; i < G_N_ELEMENTS(columns); i++)
            *slot(sn, &columns[i]) = NULL;
        sn->data = NULL;
        sn->len = 0;
    }
    hf_heap_unmap(&d->heap);
}

void v8_status(hf_dump *base, GString *out)
{
    hf_keepstore_status(&((v8_dump *)base)->store, out);
    hf_heap_graph_status(base, out);
}
