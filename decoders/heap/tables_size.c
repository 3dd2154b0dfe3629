/*
 * tables_size.c - measuring the heap tables by blocks (tables.h): what
 * lets `ls -l tables/` give exact sizes of tables of hundreds of MB without
 * writing them, and fs/ keep a checkpoint every few KiB.
 */
#include "decoders/heap/tables.h"
#include "decoders/core/workmem.h"

#include <string.h>

typedef struct {
    uint32_t snap;
    hf_tsv_rows_fn rows;
    uint64_t *bytes; /* per block */
} blocks;

struct hf_htables {
    GMutex lock; /* held while a table's blocks are summed */
    GArray *tables; /* blocks */
    GMutex names_lock; /* for dir_lens (taken while `lock` is held) */
    GPtrArray *dir_lens; /* per snapshot: uint32_t per class, or NULL */
};

void hf_htables_free(hf_htables *t)
{
    if (!t)
        return;
    for (guint i = 0; i < t->tables->len; i++)
        g_free(g_array_index(t->tables, blocks, i).bytes);
    g_array_free(t->tables, TRUE);
    g_ptr_array_free(t->dir_lens, TRUE);
    g_mutex_clear(&t->lock);
    g_mutex_clear(&t->names_lock);
    g_free(t);
}

static hf_htables *tables_of(hf_heap *h)
{
    if (g_once_init_enter(&h->tables)) {
        hf_htables *t = g_new0(hf_htables, 1);
        g_mutex_init(&t->lock);
        g_mutex_init(&t->names_lock);
        t->tables = g_array_new(FALSE, FALSE, sizeof(blocks));
        t->dir_lens = g_ptr_array_new_with_free_func(g_free);
        g_once_init_leave(&h->tables, t);
    }
    return h->tables;
}

const uint32_t *hf_heap_dir_lens(hf_heap *h, uint32_t s)
{
    hf_htables *t = tables_of(h);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    g_mutex_lock(&t->names_lock);
    if (t->dir_lens->len <= s)
        g_ptr_array_set_size(t->dir_lens, (guint)s + 1);
    uint32_t *lens = g_ptr_array_index(t->dir_lens, s);
    if (!lens) {
        lens = g_new(uint32_t, MAX(sn->classes->len, 1));
        for (guint c = 0; c < sn->classes->len; c++) {
            const char *dir = hf_heap_class(sn, c)->dir;
            lens[c] = (uint32_t)hf_tsv_text_len(dir, strlen(dir));
        }
        g_ptr_array_index(t->dir_lens, s) = lens;
    }
    g_mutex_unlock(&t->names_lock);
    return lens;
}

typedef struct {
    hf_dump *d;
    const hf_view *v;
    hf_tsv_rows_fn rows;
    unsigned shift;
    uint64_t n_objects, *bytes;
    uint64_t from, to; /* blocks */
} sum_job;

/* The bytes of the rows of objects [o, o + n). */
static uint64_t rows_bytes(const sum_job *j, uint64_t o, uint64_t n)
{
    hf_tsv t = {NULL, 0, 0};
    uint64_t end = o + n;
    t.stop = end < j->n_objects ? 1 + (end << j->shift) : 0;
    uint64_t item = 1 + (o << j->shift);
    while (item != HF_DONE && (!t.stop || item < t.stop))
        item = j->rows(j->d, j->v, item, &t, SIZE_MAX);
    return t.n;
}

static gpointer sum_blocks(gpointer ud)
{
    sum_job *j = ud;
    for (uint64_t b = j->from; b < j->to; b++)
        j->bytes[b] = rows_bytes(j, b * HF_HTABLE_BLOCK, HF_HTABLE_BLOCK);
    return NULL;
}

/* Byte counts per block of the table (rows, snapshot v->snap), summed on
 * every processor the first time. */
static const uint64_t *blocks_of(hf_dump *d, const hf_view *v, hf_tsv_rows_fn rows,
                                 unsigned shift, uint64_t n_objects)
{
    hf_htables *t = tables_of((hf_heap *)d);
    g_mutex_lock(&t->lock);
    for (guint i = 0; i < t->tables->len; i++) {
        blocks *b = &g_array_index(t->tables, blocks, i);
        if (b->snap == v->snap && b->rows == rows) {
            g_mutex_unlock(&t->lock);
            return b->bytes;
        }
    }
    uint64_t n = (n_objects + HF_HTABLE_BLOCK - 1) / HF_HTABLE_BLOCK;
    blocks b = {v->snap, rows, g_new0(uint64_t, MAX(n, 1))};
    unsigned nt = MIN(hf_work_cpus(), 16);
    if (n < 64 * nt)
        nt = 1;
    sum_job jobs[16];
    GThread *th[16];
    for (unsigned k = 0; k < nt; k++) {
        jobs[k] = (sum_job){d, v, rows, shift, n_objects, b.bytes, n * k / nt, n * (k + 1) / nt};
        th[k] = k ? g_thread_new("heapfs-tables", sum_blocks, &jobs[k]) : NULL;
    }
    sum_blocks(&jobs[0]);
    for (unsigned k = 1; k < nt; k++)
        g_thread_join(th[k]);
    g_array_append_val(t->tables, b);
    g_mutex_unlock(&t->lock);
    return b.bytes;
}

uint64_t hf_heap_table_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                               size_t budget, hf_tsv_rows_fn rows, unsigned shift)
{
    const hf_hsnap *sn = hf_heap_snap((hf_heap *)d, v->snap);
    hf_tsv t = {NULL, 0, 0};
    if (!sn)
        return HF_DONE;
    uint64_t item = first;
    if (item == 0) { /* the header, and whatever comes before the first object */
        t.stop = 1;
        item = rows(d, v, 0, &t, SIZE_MAX);
        t.stop = 0;
        if (item == HF_DONE || !sn->n_objects) {
            *bytes += t.n;
            return HF_DONE;
        }
    }
    const uint64_t *blk = blocks_of(d, v, rows, shift, sn->n_objects);
    uint64_t mask = (UINT64_C(1) << shift) - 1;
    while (t.n < budget || t.n == 0) {
        uint64_t o = (item - 1) >> shift;
        if (o >= sn->n_objects) {
            item = HF_DONE;
            break;
        }
        uint64_t b = o / HF_HTABLE_BLOCK, next = (b + 1) * HF_HTABLE_BLOCK;
        bool at_block = ((item - 1) & mask) == 0 && o % HF_HTABLE_BLOCK == 0;
        if (at_block && blk[b] <= 4 * (uint64_t)budget) {
            t.n += blk[b];
            item = next < sn->n_objects ? 1 + (next << shift) : HF_DONE;
        } else { /* row by row, up to the next block at most */
            t.stop = next < sn->n_objects ? 1 + (next << shift) : 0;
            item = rows(d, v, item, &t, budget > t.n ? budget - t.n : 1);
            t.stop = 0;
        }
        if (item == HF_DONE)
            break;
    }
    *bytes += t.n;
    return item;
}
