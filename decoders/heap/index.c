/*
 * index.c - a snapshot's object index while building (build.h): every
 * object once, in id order, as locators (locs) and samples, with the key
 * of each object in cls for build.c to resolve.  The objects come from the
 * snapshot's {id, loc} pairs, or from its runs (objects keyed while
 * scanning); class objects come as pairs either way and are merged in.
 *
 * Runs that follow each other in ascending id order (HotSpot's heap walk)
 * are neither copied nor sorted: each class object's place among them is
 * found first (a binary search reading ids back from the file), then the
 * runs are copied into the index in order, on two threads when the heap
 * allows it (hf_heap.build_threads; the result is the same on one), each
 * chunk of a run freed as soon as it is copied.  Other runs are turned into
 * pairs (ids read back) and sorted.
 *
 * Building only: called from hf_heap_finish, which waits for the threads.
 */
#include "decoders/core/keeparray.h"
#include "decoders/heap/build.h"

#include "decoders/core/search.h"

#include <string.h>

#define LOC_MASK ((UINT64_C(1) << HF_LOC_BITS) - 1)
/* Fewer objects than this are copied on one thread. */
#define PARALLEL_MIN 4096
/* A class object's place among the runs' objects: dropped (its id repeats). */
#define DROPPED (UINT64_C(1) << 63)

void hf_heap_free_runs(hf_hsnap *sn)
{
    for (guint r = 0; sn->runs && r < sn->runs->len; r++)
        hf_hrun_free(g_ptr_array_index(sn->runs, r));
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

static inline uint32_t word_key(uint64_t w, uint32_t base)
{
    uint32_t k = (uint32_t)(w >> HF_LOC_BITS);
    return k == HF_HKEY_NONE ? k : base + k;
}

/* Write entry n of the index (its id is the caller's to sample). */
static inline void put(hf_hsnap *sn, uint64_t n, uint64_t loc, uint32_t key)
{
    uint8_t *p = sn->locs + 5 * n;
    p[0] = (uint8_t)loc, p[1] = (uint8_t)(loc >> 8), p[2] = (uint8_t)(loc >> 16);
    p[3] = (uint8_t)(loc >> 24), p[4] = (uint8_t)(loc >> 32);
    sn->cls[n] = key;
}

/* The id of run r's object i, read back from its record. */
static inline uint64_t run_id(const hf_heap *h, const hf_hrun *r, uint64_t i)
{
    return h->codec->object_id(h, hf_hrun_word(r, i) & LOC_MASK);
}

/* Word i of run r was copied: its chunk goes when i is the chunk's last. */
static inline void copied(hf_hrun *r, uint64_t i)
{
    if ((i & HF_RUN_MASK) == HF_RUN_MASK || i + 1 == r->len) {
        g_free(r->chunk[i >> HF_RUN_BITS]);
        r->chunk[i >> HF_RUN_BITS] = NULL;
    }
}

/* ---- runs in ascending id order ---- */

typedef struct {
    const hf_heap *h;
    hf_hsnap *sn;
    hf_hrun **runs;       /* the snapshot's non-empty runs */
    const uint32_t *base; /* key number base per run */
    const uint64_t *b;    /* class pairs, sorted */
    const uint64_t *pos;  /* per class pair: its place among the runs' objects | DROPPED */
    guint r0, r1;         /* this job: runs [r0, r1), */
    size_t b0, b1;        /* class pairs [b0, b1), */
    uint64_t n0;          /* written from index entry n0 on */
    uint64_t n;           /* result: the end */
} copy_job;

/* Class pair ib as index entry n. */
static inline void put_class(const copy_job *c, uint64_t n, size_t ib)
{
    if (n % HF_SAMPLE == 0)
        c->sn->samples[n / HF_SAMPLE] = c->b[2 * ib];
    put(c->sn, n, c->b[2 * ib + 1], HF_HKEY_NONE);
}

static gpointer copy_runs(gpointer ud)
{
    copy_job *c = ud;
    const hf_heap *h = c->h;
    hf_hsnap *sn = c->sn;
    uint64_t n = c->n0, o = 0; /* o: the next object's place among all runs' objects */
    size_t ib = c->b0;
    for (guint r = 0; r < c->r0; r++)
        o += c->runs[r]->len;
    for (guint r = c->r0; r < c->r1; r++) {
        hf_hrun *run = c->runs[r];
        for (uint64_t i = 0; i < run->len; i++, o++) {
            for (; ib < c->b1 && (c->pos[ib] & ~DROPPED) <= o; ib++)
                if (!(c->pos[ib] & DROPPED))
                    put_class(c, n++, ib);
            uint64_t w = hf_hrun_word(run, i);
            if (n % HF_SAMPLE == 0)
                sn->samples[n / HF_SAMPLE] = h->codec->object_id(h, w & LOC_MASK);
            put(sn, n++, w & LOC_MASK, word_key(w, c->base[r]));
            copied(run, i);
        }
    }
    for (; ib < c->b1; ib++) /* the class objects after the last object */
        if (!(c->pos[ib] & DROPPED))
            put_class(c, n++, ib);
    c->n = n;
    return NULL;
}

typedef struct {
    const hf_heap *h;
    hf_hrun *const *runs;
    const hf_hrun *run;
    uint64_t id;
} place_key;

/* Whether run i starts at or below id. */
static bool run_starts_below(const void *ud, uint64_t i)
{
    const place_key *k = ud;
    return k->runs[i]->first_id <= k->id;
}

/* Whether the run's object i has an id below id (read back). */
static bool object_below(const void *ud, uint64_t i)
{
    const place_key *k = ud;
    return run_id(k->h, k->run, i) < k->id;
}

/* Each class pair's place among the objects of runs in id order (before
 * the first object whose id is not less), DROPPED when its id repeats a
 * class's or an object's (the object is kept).  Places never decrease, even
 * if the file changed since it was scanned.  Returns the pairs dropped. */
static uint64_t place_classes(const hf_heap *h, hf_hrun **runs, guint n_runs,
                              const hf_hpairs *b, uint64_t *pos, uint64_t *dup_loc)
{
    uint64_t *start = g_new(uint64_t, n_runs + 1), prev = 0, dups = 0;
    start[0] = 0;
    for (guint r = 0; r < n_runs; r++)
        start[r + 1] = start[r] + runs[r]->len;
    for (size_t k = 0; k < b->len; k++) {
        uint64_t id = b->v[2 * k], p;
        bool drop = k > 0 && id == b->v[2 * k - 2];
        place_key key = {h, runs, NULL, id};
        /* lo - 1: the last run starting at or below id */
        guint lo = (guint)hf_lower_bound(0, n_runs, run_starts_below, &key);
        if (lo == 0) {
            p = 0;
        } else if (id > runs[lo - 1]->max_id) {
            p = start[lo];
        } else {
            const hf_hrun *run = key.run = runs[lo - 1];
            uint64_t a = hf_lower_bound(0, run->len, object_below, &key);
            drop = drop || (a < run->len && run_id(h, run, a) == id);
            p = start[lo - 1] + a;
        }
        prev = p = p > prev ? p : prev;
        pos[k] = p | (drop ? DROPPED : 0);
        if (drop && dups++ == 0)
            *dup_loc = b->v[2 * k + 1];
    }
    g_free(start);
    return dups;
}

/* Runs in ascending id order with the class pairs b into the index;
 * returns its length. */
static uint64_t index_runs(const hf_heap *h, hf_hsnap *sn, const uint32_t *base, uint64_t objects,
                           const hf_hpairs *b, uint64_t *dups, uint64_t *dup_loc)
{
    hf_hrun **runs = (hf_hrun **)sn->runs->pdata;
    guint n_runs = sn->runs->len;
    uint64_t *pos = g_new(uint64_t, b->len + 1);
    *dups = place_classes(h, runs, n_runs, b, pos, dup_loc);
    copy_job all = {.h = h, .sn = sn, .runs = runs, .base = base, .b = b->v, .pos = pos,
                    .r1 = n_runs, .b1 = b->len};
    if (h->build_threads < 2 || n_runs < 2 || objects < PARALLEL_MIN) {
        copy_runs(&all);
    } else {
        /* the second thread: the runs from about half the objects on, and
         * the class objects placed among them */
        guint m = 1;
        uint64_t before = runs[0]->len;
        while (m + 1 < n_runs && before + runs[m]->len <= objects / 2)
            before += runs[m++]->len;
        size_t bm = 0;
        uint64_t kept = 0;
        for (; bm < b->len && (pos[bm] & ~DROPPED) < before; bm++)
            kept += !(pos[bm] & DROPPED);
        copy_job lo = all, hi = all;
        lo.r1 = m, lo.b1 = bm;
        hi.r0 = m, hi.b0 = bm, hi.n0 = before + kept;
        GThread *t = g_thread_try_new("heapfs-index", copy_runs, &hi, NULL);
        if (!t)
            copy_runs(&hi);
        copy_runs(&lo);
        if (t)
            g_thread_join(t);
        all.n = hi.n;
    }
    g_free(pos);
    return all.n;
}

/* ---- pairs ---- */

/* The runs as pairs {id, loc | (base + key) << HF_LOC_BITS} in one array
 * sorted by id (stable: duplicates keep file order); frees the runs'
 * chunks as they are copied. */
static hf_hpairs runs_as_pairs(const hf_heap *h, hf_hsnap *sn, const uint32_t *base,
                               uint64_t objects)
{
    hf_hpairs all = {g_new(uint64_t, 2 * objects + 2), objects, objects};
    size_t n = 0;
    for (guint r = 0; r < sn->runs->len; r++) {
        hf_hrun *run = g_ptr_array_index(sn->runs, r);
        for (uint64_t i = 0; i < run->len; i++, n++) {
            uint64_t w = hf_hrun_word(run, i);
            all.v[2 * n] = h->codec->object_id(h, w & LOC_MASK);
            all.v[2 * n + 1] = (w & LOC_MASK) | (uint64_t)word_key(w, base[r]) << HF_LOC_BITS;
            copied(run, i);
        }
    }
    hf_hpairs_sort(all.v, n);
    return all;
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

/* Objects as pairs a sorted by id (keyed: loc | key << HF_LOC_BITS) with
 * the class pairs b into the index; an id that repeats keeps its first
 * pair, objects before classes.  Returns the index's length. */
static uint64_t merge_pairs(const hf_heap *h, hf_hsnap *sn, const hf_hkeyset *ks,
                            const hf_hpairs *a, bool keyed, const hf_hpairs *b,
                            uint64_t *dups, uint64_t *dup_loc)
{
    uint64_t n = 0, prev = 0;
    size_t ia = 0, ib = 0;
    while (ia < a->len || ib < b->len) {
        uint64_t id, w;
        uint32_t key = HF_HKEY_NONE;
        if (ia == a->len || (ib < b->len && b->v[2 * ib] < a->v[2 * ia])) {
            id = b->v[2 * ib], w = b->v[2 * ib + 1];
            ib++;
        } else {
            id = a->v[2 * ia], w = a->v[2 * ia + 1];
            ia++;
            if (keyed)
                key = (uint32_t)(w >> HF_LOC_BITS);
        }
        uint64_t loc = w & LOC_MASK;
        if (n && id == prev) {
            if ((*dups)++ == 0)
                *dup_loc = loc;
            if (key != HF_HKEY_NONE)
                unkey(h, ks->key[key], loc);
            continue;
        }
        if (n % HF_SAMPLE == 0)
            sn->samples[n / HF_SAMPLE] = id;
        put(sn, n++, loc, key);
        prev = id;
    }
    return n;
}

uint64_t hf_heap_index_objects(hf_heap *h, hf_hsnap *sn, hf_hkeyset *ks)
{
    *ks = (hf_hkeyset){0};
    numbering nb = {g_ptr_array_new(), g_array_new(FALSE, FALSE, sizeof(uint32_t)), ks};
    hf_hpairs *b = &sn->tmp[1];
    hf_hpairs_sort(b->v, b->len);
    /* the runs with objects, their key bases, and whether they follow each
     * other in ascending id order */
    GPtrArray *runs = g_ptr_array_new();
    GArray *base = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    bool in_order = true;
    uint64_t objects = 0;
    for (guint r = 0; sn->runs && r < sn->runs->len; r++) {
        hf_hrun *run = g_ptr_array_index(sn->runs, r);
        uint32_t kb = table_base(&nb, run->keys);
        if (!run->len) {
            hf_hrun_free(run);
            continue;
        }
        if (run->unsorted || (objects && run->first_id <= ((hf_hrun *)g_ptr_array_index(runs, runs->len - 1))->max_id))
            in_order = false;
        objects += run->len;
        g_ptr_array_add(runs, run);
        g_array_append_val(base, kb);
    }
    if (sn->runs) {
        g_ptr_array_free(sn->runs, TRUE);
        sn->runs = runs;
    } else {
        g_ptr_array_free(runs, TRUE);
        objects = sn->tmp[0].len;
    }
    uint64_t total = objects + b->len;
    /* the arrays the index file keeps: given to it once written (keeparray.h) */
    sn->locs = hf_keeparray_new(5 * total + 8);
    sn->cls = hf_keeparray_new(4 * (total + 1));
    sn->samples = hf_keeparray_new(8 * ((total + HF_SAMPLE - 1) / HF_SAMPLE + 1));
    /* An id that repeats (a damaged or hostile dump) keeps its first record
     * only: a directory must not list one name twice (find, NFS readdir). */
    uint64_t n, dups = 0, dup_loc = 0;
    const uint32_t *kb = (const uint32_t *)(void *)base->data;
    if (sn->runs && in_order) {
        n = index_runs(h, sn, kb, objects, b, &dups, &dup_loc);
    } else if (sn->runs) {
        hf_hpairs all = runs_as_pairs(h, sn, kb, objects);
        n = merge_pairs(h, sn, ks, &all, true, b, &dups, &dup_loc);
        g_free(all.v);
    } else {
        hf_hpairs_sort(sn->tmp[0].v, sn->tmp[0].len);
        n = merge_pairs(h, sn, ks, &sn->tmp[0], false, b, &dups, &dup_loc);
    }
    sn->n_objects = n;
    sn->n_samples = (n + HF_SAMPLE - 1) / HF_SAMPLE;
    if (dups)
        hf_problem(&h->base, dup_loc, "%" G_GUINT64_FORMAT " objects repeat an id seen before "
                   "(the first record of each id is kept)", (guint64)dups);
    g_array_free(base, TRUE);
    for (int k = 0; k < 2; k++) {
        g_free(sn->tmp[k].v);
        sn->tmp[k] = (hf_hpairs){0};
    }
    hf_heap_free_runs(sn);
    g_ptr_array_free(nb.tables, TRUE);
    g_array_free(nb.base, TRUE);
    return n;
}
