/*
 * store.c - a V8 snapshot file's index file (core/keepstore.h): the heap
 * layer's sections (heap/persist.h) and the snapshot's, so that a later
 * mount maps them and reads no JSON.  Each file of a mount has its own,
 * the one a mount of that file alone has: a series (several files) loads
 * its members' files one after the other into one heap, and writes, for
 * each file it read, the file a mount of it alone would have written.
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
 * A series: the heap layer's part of each file holds one snapshot, its
 * locators from 0 and its problems; hf_heap_load adds a file's snapshots
 * and problems to those the heap has (persist.c), so loading the files in
 * turn gives the series' heap, once each snapshot's locators are moved up
 * by its base (a copy: the mapping is read-only) and its number set.  The
 * size rule (V8 states every size; ids below 2^32 decide the same rule)
 * must be the same in each, and traces numbered within 2^32, or the files
 * are not used.  A series read from its files writes each member's file
 * from a heap of that snapshot alone, made after the mount is live from
 * the series' snapshot (the columns are the same), with the problems
 * reading that file gave.
 *
 * Single-threaded: load inside open, save on the after-mount thread (it
 * only reads the dump).
 */
#include "decoders/v8/v8.h"
#include "decoders/heap/build.h"
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

/* Called only when a file is written (not with index=none, nor when the
 * dump changed): the strings are copied here, not before. */
static void fill(hf_keepw *w, void *ud)
{
    saving *sv = ud;
    v8_snap *sn = g_ptr_array_index(sv->d->snaps, 0);
    copy_strings(sn, sv);
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

/* The file of member m, whose snapshot alone is d's (the file's data and
 * size: its key is checked again before writing). */
static uint64_t save_one(v8_dump *d, v8_member *m)
{
    v8_snap *sn = g_ptr_array_index(d->snaps, 0);
    saving sv = {d};
    uint64_t id = hf_keepstore_save(&m->store, sn->path,
                                    (const uint8_t *)g_mapped_file_get_contents(m->map),
                                    g_mapped_file_get_length(m->map), fill, &sv);
    if (sv.strings)
        g_byte_array_free(sv.strings, TRUE);
    g_free(sv.str_off);
    return id;
}

/* Member i of a series, written: the heap of its snapshot alone, as a
 * mount of its file would have built it (locators from 0, its own
 * problems), over the series' columns, which are the file's. */
static uint64_t save_member(v8_dump *d, uint32_t i)
{
    v8_member *m = &d->members[i];
    const v8_snap *sn = g_ptr_array_index(d->snaps, i);
    v8_snap one = *sn;
    one.base = 0;
    one.tbase = 0;
    v8_dump *alone = g_new0(v8_dump, 1);
    hf_heap_init(&alone->heap, d->heap.base.ops, &v8_codec, sn->path, NULL, 8);
    alone->snaps = g_ptr_array_new(); /* borrows one */
    g_ptr_array_add(alone->snaps, &one);
    hf_dump *a = &alone->heap.base;
    for (uint32_t k = 0; k < m->n_lines; k++)
        g_ptr_array_add(a->problems,
                        g_strdup(g_ptr_array_index(d->heap.base.problems, m->problem0 + k)));
    a->n_problems = m->n_problems;
    v8_build_heap(alone);
    uint64_t id = save_one(alone, m);
    g_ptr_array_free(alone->snaps, TRUE);
    hf_heap_clear(&alone->heap);
    g_free(alone);
    return id;
}

void v8_store_save(hf_dump *base)
{
    v8_dump *d = (v8_dump *)base;
    if (d->loaded)
        return;
    if (d->n_members == 1) {
        uint64_t id = d->members[0].note ? 0 : save_one(d, &d->members[0]);
        if (id) /* results computed from this heap are this file's */
            hf_heap_graphs_source(d->heap.graphs, id);
        return;
    }
    for (uint32_t i = 0; i < d->n_members; i++) {
        v8_member *m = &d->members[i];
        uint64_t id = !m->note && m->store.paths && m->store.paths->len ? save_member(d, i) : 0;
        if (id) /* snapshot i's results are its file's */
            hf_heap_graphs_source_of(d->heap.graphs, i, id);
    }
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

/* The heap layer's rule and what V8 never has, as a file left them. */
typedef struct {
    unsigned ref_size, obj_header, arr_header, align;
    bool compressed;
    uint8_t rule_basis;
    hf_hlayout layout;
} rule;

static rule rule_of(const hf_heap *h)
{
    rule r = {h->ref_size, h->obj_header, h->arr_header, h->align, h->compressed,
              h->rule_basis, h->layout};
    return r;
}

static bool same_rule(const rule *a, const rule *b)
{
    return a->ref_size == b->ref_size && a->obj_header == b->obj_header &&
           a->arr_header == b->arr_header && a->align == b->align &&
           a->compressed == b->compressed && a->rule_basis == b->rule_basis &&
           memcmp(&a->layout, &b->layout, sizeof a->layout) == 0;
}

/* Member i's heap sections added to d's heap (the snapshots before it
 * loaded): its snapshot numbered, its locators moved up by its base. */
static bool join_heap(v8_dump *d, const hf_keepr *r, uint32_t i)
{
    hf_heap *h = &d->heap;
    rule before = rule_of(h);
    uint64_t problems = h->base.n_problems;
    g_clear_pointer(&h->graphs, hf_heap_graphs_free); /* made anew for all the snapshots */
    if (!hf_heap_load(h, r) || h->snaps->len != i + 1 || h->frames->len || h->traces->len ||
        h->threads->len)
        return false;
    h->base.n_problems += problems;
    rule now = rule_of(h);
    if (i && !same_rule(&before, &now))
        return false;
    hf_hsnap *hs = &g_array_index(h->snaps, hf_hsnap, i);
    hs->number = i + 1;
    const v8_snap *sn = g_ptr_array_index(d->snaps, i);
    if (!sn->base)
        return true;
    v8_member *m = &d->members[i];
    m->locs = g_malloc(5 * hs->n_objects + 1);
    for (uint64_t o = 0; o < hs->n_objects; o++) {
        uint64_t loc = hf_heap_loc(hs, o) + sn->base;
        for (int k = 0; k < 5; k++)
            m->locs[5 * o + k] = (uint8_t)(loc >> 8 * k);
    }
    hs->locs = m->locs;
    return true;
}

typedef struct {
    v8_dump *d;
    uint32_t i;
} loading;

static bool load(const hf_keepr *r, void *ud)
{
    loading *l = ud;
    v8_dump *d = l->d;
    v8_snap *sn = g_new0(v8_snap, 1);
    sn->path = g_strdup(d->members[l->i].path);
    g_ptr_array_add(d->snaps, sn);
    uint64_t len;
    if (!load_head(sn, r, &len) || !map_columns(sn, r) ||
        !(sn->data = hf_keepr_section(r, S_STRINGS, &sn->len)) || sn->len != len)
        return false;
    if (l->i) { /* numbered after the snapshot before, as the series' reading does */
        const v8_snap *prev = g_ptr_array_index(d->snaps, l->i - 1);
        sn->base = prev->base + prev->n;
        sn->tbase = prev->tbase + prev->n_tnodes;
        if (sn->n_tnodes > UINT32_MAX - 1 - sn->tbase)
            return false; /* traces past 2^32: reading leaves them out */
    }
    return join_heap(d, r, l->i);
}

/* Why the valid file r of member i is not used: member `bad` has none. */
static void note_valid(v8_dump *d, uint32_t i, const hf_keepr *r, uint32_t bad)
{
    d->members[i].note = g_strdup_printf("%s valid, not used: snapshot %u has no usable "
                                         "index file, the series is read whole\n",
                                         hf_keepr_path(r), bad + 1);
    d->members[i].valid_id = hf_keepr_id(r);
}

bool v8_store_load(v8_dump *d)
{
    d->loaded = true; /* from the first try: what it mapped is forgotten at destroy */
    uint32_t i = 0;
    while (i < d->n_members && hf_keepstore_load(&d->members[i].store, load,
                                                 &(loading){d, i}))
        i++;
    if (i == d->n_members) {
        v8_heap_hooks(&d->heap);
        if (d->heap.base.problems->len > HF_PROBLEMS_MAX) /* each file's own first ones */
            g_ptr_array_set_size(d->heap.base.problems, HF_PROBLEMS_MAX);
        return true;
    }
    /* the files before it are valid (kept, not written again), and so
     * may those after it be */
    for (uint32_t j = 0; j < i; j++)
        note_valid(d, j, d->members[j].store.r, i);
    for (uint32_t j = i + 1; j < d->n_members; j++) {
        hf_keepstore *st = &d->members[j].store;
        hf_keepr *r = st->keyed ? hf_keepr_open(&st->key, st->paths, NULL) : NULL;
        if (r)
            note_valid(d, j, r, i);
        hf_keepr_free(r);
    }
    return false;
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

/* "index: snapshot 2: " and the rest of member i's line (a series). */
static void member_status(v8_dump *d, uint32_t i, GString *out)
{
    v8_member *m = &d->members[i];
    GString *line = g_string_new(NULL);
    if (m->note)
        g_string_append_printf(line, "index: %s", m->note);
    else
        hf_keepstore_status(&m->store, line);
    if (d->n_members > 1 && g_str_has_prefix(line->str, "index: "))
        g_string_append_printf(out, "index: snapshot %u: %s", i + 1, line->str + 7);
    else
        g_string_append(out, line->str);
    g_string_free(line, TRUE);
}

void v8_status(hf_dump *base, GString *out)
{
    v8_dump *d = (v8_dump *)base;
    for (uint32_t i = 0; i < d->n_members; i++)
        member_status(d, i, out);
    hf_heap_graph_status(base, out);
}
