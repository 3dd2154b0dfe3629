/*
 * index.c - a snapshot's object index while building (heap.h): every
 * object once, in id order, as locators (locs) and samples, with the key
 * of each object in cls for build.c to resolve.  The objects come from the
 * snapshot's {id, loc} pairs, or from its runs (objects keyed while
 * scanning); class objects come as pairs either way and are merged in.
 * Runs that follow each other in ascending id order (HotSpot's heap walk)
 * are neither copied nor sorted, and are merged on two threads when the
 * heap allows it (hf_heap.build_threads); the result is the same on one.
 *
 * Building only: called from hf_heap_finish, which waits for the threads.
 */
#include "decoders/heap/heap.h"

#include <string.h>

#define LOC_MASK ((UINT64_C(1) << HF_LOC_BITS) - 1)
/* Fewer objects than this are merged on one thread. */
#define PARALLEL_MIN 4096

void hf_heap_free_runs(hf_hsnap *sn)
{
    for (guint r = 0; sn->runs && r < sn->runs->len; r++) {
        hf_hrun *run = g_ptr_array_index(sn->runs, r);
        g_free(run->p.v);
        g_free(run);
    }
    if (sn->runs)
        g_ptr_array_free(sn->runs, TRUE);
    sn->runs = NULL;
}

/* The key tables of a snapshot's runs, numbered across them (a run's key k
 * is base + k). */
typedef struct {
    GPtrArray *tables; /* hf_hkeys *, in order met */
    GArray *base;      /* uint32 per table */
    hf_hkeyset *ks;
} numbering;

static uint32_t table_base(numbering *nb, hf_hkeys *k)
{
    hf_hkeyset *ks = nb->ks;
    for (guint t = 0; t < nb->tables->len; t++)
        if (g_ptr_array_index(nb->tables, t) == k)
            return g_array_index(nb->base, uint32_t, t);
    g_ptr_array_add(nb->tables, k);
    g_array_append_val(nb->base, ks->n);
    ks->key = g_renew(hf_hkey *, ks->key, ks->n + k->keys->len + 1);
    for (guint i = 0; i < k->keys->len; i++)
        ks->key[ks->n + i] = &g_array_index(k->keys, hf_hkey, i);
    ks->n += k->keys->len;
    return ks->n - k->keys->len;
}

/* A part of the objects in id order: pairs whose keys are base + key
 * (keyed), or plain {id, loc} pairs. */
typedef struct {
    const uint64_t *v;
    size_t len;
    uint32_t base;
    bool keyed;
} part;

/* The object parts of sn: its runs as they are when they follow each other
 * in ascending id order, else all of them in one array sorted by id
 * (stable: duplicates keep file order), in *all.  *runs_in_order: the
 * first case. */
static GArray *object_parts(hf_hsnap *sn, numbering *nb, hf_hpairs *all, bool *runs_in_order)
{
    GArray *parts = g_array_new(FALSE, FALSE, sizeof(part));
    bool in_order = true;
    uint64_t prev_max = 0, total = 0;
    for (guint r = 0; sn->runs && r < sn->runs->len; r++) {
        hf_hrun *run = g_ptr_array_index(sn->runs, r);
        part pt = {run->p.v, run->p.len, table_base(nb, run->keys), true};
        if (!run->p.len)
            continue;
        if (run->unsorted || (total && run->p.v[0] <= prev_max))
            in_order = false;
        prev_max = run->max_id;
        total += run->p.len;
        g_array_append_val(parts, pt);
    }
    *runs_in_order = sn->runs && in_order;
    if (!sn->runs) {
        hf_hpairs_sort(sn->tmp[0].v, sn->tmp[0].len);
        part pt = {sn->tmp[0].v, sn->tmp[0].len, 0, false};
        g_array_append_val(parts, pt);
    } else if (!in_order) {
        *all = (hf_hpairs){g_new(uint64_t, 2 * total + 2), total, total};
        size_t n = 0;
        for (guint i = 0; i < parts->len; i++) {
            const part *pt = &g_array_index(parts, part, i);
            for (size_t j = 0; j < pt->len; j++, n++) {
                uint64_t w = pt->v[2 * j + 1], k = w >> HF_LOC_BITS;
                all->v[2 * n] = pt->v[2 * j];
                all->v[2 * n + 1] =
                    (w & LOC_MASK) | (k == HF_HKEY_NONE ? k : pt->base + k) << HF_LOC_BITS;
            }
        }
        hf_hpairs_sort(all->v, n);
        g_array_set_size(parts, 0);
        part pt = {all->v, n, 0, true};
        g_array_append_val(parts, pt);
    }
    return parts;
}

/* A dropped duplicate: its key no longer counts it. */
static void unkey(const hf_heap *h, hf_hkey *k, uint64_t loc)
{
    hf_hshape sh = {0};
    k->count--;
    if (k->by_len && h->codec->shape(h, loc, &sh)) {
        k->sum_len -= sh.length;
        k->by_len[sh.length & 255]--;
    }
}

/* Merging parts [p0, p1) with class pairs [b0, b1) into the index from
 * position n0 on. */
typedef struct {
    const hf_heap *h;
    hf_hsnap *sn;
    const hf_hkeyset *ks;
    const part *parts;
    guint p0, p1;
    const uint64_t *b;
    size_t b0, b1;
    uint64_t n0;
    bool strict;                /* a repeated id fails the merge instead */
    uint64_t n, dups, dup_loc;  /* results: the end, ids dropped */
    bool failed;
} merge_job;

static gpointer merge(gpointer ud)
{
    merge_job *m = ud;
    hf_hsnap *sn = m->sn;
    const uint64_t *b = m->b;
    uint64_t n = m->n0, prev = 0;
    bool any = false;
    size_t ib = m->b0;
    for (guint pi = m->p0; pi <= m->p1; pi++) {
        const part *pt = pi < m->p1 ? &m->parts[pi] : NULL;
        for (size_t ia = 0; pt ? ia < pt->len : ib < m->b1;) {
            /* on equal ids the object that is not a class first */
            uint64_t id, w;
            uint32_t key = HF_HKEY_NONE;
            if (!pt || (ib < m->b1 && b[2 * ib] < pt->v[2 * ia])) {
                id = b[2 * ib], w = b[2 * ib + 1];
                ib++;
            } else {
                id = pt->v[2 * ia], w = pt->v[2 * ia + 1];
                ia++;
                if (pt->keyed && (w >> HF_LOC_BITS) != HF_HKEY_NONE)
                    key = pt->base + (uint32_t)(w >> HF_LOC_BITS);
            }
            uint64_t loc = w & LOC_MASK;
            if (any && id == prev) {
                if (m->strict) {
                    m->failed = true;
                    return NULL;
                }
                if (m->dups++ == 0)
                    m->dup_loc = loc;
                if (key != HF_HKEY_NONE)
                    unkey(m->h, m->ks->key[key], loc);
                continue;
            }
            uint8_t *p = sn->locs + 5 * n;
            p[0] = (uint8_t)loc, p[1] = (uint8_t)(loc >> 8), p[2] = (uint8_t)(loc >> 16);
            p[3] = (uint8_t)(loc >> 24), p[4] = (uint8_t)(loc >> 32);
            if (n % HF_SAMPLE == 0)
                sn->samples[n / HF_SAMPLE] = id;
            sn->cls[n] = key;
            prev = id;
            any = true;
            n++;
        }
    }
    m->n = n;
    return NULL;
}

/* The merge on two threads, each half of the runs with the class objects
 * whose ids fall in it; false (and nothing to keep) when an id repeats. */
static bool merge_two(const merge_job *all, uint64_t objects)
{
    const hf_hpairs *b = &all->sn->tmp[1];
    for (size_t i = 1; i < b->len; i++)
        if (b->v[2 * i] == b->v[2 * i - 2])
            return false;
    guint m = 0;
    uint64_t before = 0;
    while (m + 1 < all->p1 && before + all->parts[m].len < objects / 2)
        before += all->parts[m++].len;
    if (m == 0)
        before += all->parts[m++].len;
    uint64_t split = all->parts[m].v[0];
    size_t bm = 0;
    while (bm < b->len && b->v[2 * bm] < split)
        bm++;
    merge_job lo = *all, hi = *all;
    lo.p1 = m, lo.b1 = bm, lo.strict = true;
    hi.p0 = m, hi.b0 = bm, hi.n0 = before + bm, hi.strict = true;
    GThread *t = g_thread_try_new("heapfs-index", merge, &hi, NULL);
    if (!t)
        merge(&hi);
    merge(&lo);
    if (t)
        g_thread_join(t);
    if (lo.failed || hi.failed)
        return false;
    return lo.n == hi.n0;
}

uint64_t hf_heap_index_objects(hf_heap *h, hf_hsnap *sn, hf_hkeyset *ks)
{
    *ks = (hf_hkeyset){0};
    numbering nb = {g_ptr_array_new(), g_array_new(FALSE, FALSE, sizeof(uint32_t)), ks};
    hf_hpairs all = {0}, *b = &sn->tmp[1];
    bool runs_in_order;
    GArray *parts = object_parts(sn, &nb, &all, &runs_in_order);
    hf_hpairs_sort(b->v, b->len);
    uint64_t objects = 0;
    for (guint i = 0; i < parts->len; i++)
        objects += g_array_index(parts, part, i).len;
    uint64_t total = objects + b->len;
    sn->locs = g_malloc(5 * total + 8);
    sn->cls = g_new(uint32_t, total + 1);
    sn->samples = g_new(uint64_t, (total + HF_SAMPLE - 1) / HF_SAMPLE + 1);
    /* An id that repeats (a damaged or hostile dump) keeps its first record
     * only: a directory must not list one name twice (find, NFS readdir). */
    merge_job m = {.h = h, .sn = sn, .ks = ks, .parts = (const part *)(void *)parts->data,
                   .p1 = parts->len, .b = b->v, .b1 = b->len};
    bool done = false;
    if (runs_in_order && h->build_threads >= 2 && parts->len >= 2 && objects >= PARALLEL_MIN &&
        merge_two(&m, objects)) {
        done = true;
        m.n = total;
    }
    if (!done)
        merge(&m);
    sn->n_objects = m.n;
    sn->n_samples = (m.n + HF_SAMPLE - 1) / HF_SAMPLE;
    if (m.dups)
        hf_problem(&h->base, m.dup_loc, "%" G_GUINT64_FORMAT " objects repeat an id seen before "
                   "(the first record of each id is kept)", (guint64)m.dups);
    g_array_free(parts, TRUE);
    g_free(all.v);
    for (int k = 0; k < 2; k++) {
        g_free(sn->tmp[k].v);
        sn->tmp[k] = (hf_hpairs){0};
    }
    hf_heap_free_runs(sn);
    g_ptr_array_free(nb.tables, TRUE);
    g_array_free(nb.base, TRUE);
    return m.n;
}
