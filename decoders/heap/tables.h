/*
 * tables.h - the tables of every heap format (docs/tables.md): a
 * snapshot's tables/objects.tsv, references.tsv, classes.tsv and
 * retained.tsv, and classes/NAME/table.tsv, one row per instance.
 *
 * Each table is written once through an hf_tsv sink (core/tsv.h), so its
 * renderer (_view) and its measure (_measure, model.h hf_measure_fn: fs/
 * learns the size and the checkpoints from it without rendering) cannot
 * disagree.  Items: 0 is the header row; objects.tsv, retained.tsv and
 * table.tsv: 1 + object index; references.tsv: 1 + (object index << 24 |
 * block of 256 slots), so one huge object array is many items;
 * classes.tsv: 1 + class index.
 *
 * The cheap tables read the index and the dump only; retained.tsv
 * computes the snapshot's retained sizes (retained.h) on its first use,
 * measuring included.  Read-only over the finished graph: thread-safe.
 */
#ifndef HF_HEAP_TABLES_H
#define HF_HEAP_TABLES_H

#include "decoders/core/tsv.h"
#include "decoders/heap/heap.h"

/* references.tsv's items: 1 + (object << HF_HEAP_REFS_SHIFT | block of
 * 256 slots). */
#define HF_HEAP_REFS_SHIFT 24

/*
 * Measuring a table (tables_size.c): the first time a table of a snapshot
 * is measured, the byte counts of its rows are summed by blocks of
 * HF_HTABLE_BLOCK objects, on every processor; measuring then adds whole
 * blocks where it can (a block much bigger than the budget, a huge object
 * array's, is counted row by row so checkpoints stay close), and counts
 * rows one by one only up to the next block.  The same bytes as counting
 * every row, so a measure stays exactly what the renderer writes.
 * rows: the table's rows (hf_tsv_rows_fn); an object o's first item is
 * 1 + (o << shift).  Thread-safe: the first caller sums, others wait.
 */
#define HF_HTABLE_BLOCK 512
uint64_t hf_heap_table_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes,
                               size_t budget, hf_tsv_rows_fn rows, unsigned shift);
void hf_htables_free(hf_htables *t);
/* The escaped length of each class's name in snapshot s (hf_tsv_text_len
 * of its dir), made once: what counting a row of objects.tsv needs. */
const uint32_t *hf_heap_dir_lens(hf_heap *h, uint32_t s);

/* The renderer NAME_view and the measure NAME_measure of a heap table. */
#define HF_HEAP_TABLE(NAME, ROWS, SHIFT)                                                   \
    HF_TSV_RENDER(NAME, ROWS)                                                              \
    uint64_t NAME##_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes, \
                            size_t budget)                                                 \
    {                                                                                      \
        return hf_heap_table_measure(d, v, first, bytes, budget, ROWS, SHIFT);             \
    }

uint64_t hf_heap_objects_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
uint64_t hf_heap_objects_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first,
                                     uint64_t *bytes, size_t budget);
uint64_t hf_heap_classes_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);
uint64_t hf_heap_classes_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first,
                                     uint64_t *bytes, size_t budget);
uint64_t hf_heap_references_tsv_view(hf_dump *d, const hf_view *v, uint64_t first,
                                     GString *out, size_t budget);
uint64_t hf_heap_references_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first,
                                        uint64_t *bytes, size_t budget);
uint64_t hf_heap_retained_tsv_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget);
uint64_t hf_heap_retained_tsv_measure(hf_dump *d, const hf_view *v, uint64_t first,
                                      uint64_t *bytes, size_t budget);
/* classes/NAME/table.tsv (v->index: the class).  No measure: its values
 * (floats, text) must be written to be counted, so fs/ renders it once. */
uint64_t hf_heap_class_table_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget);

/* The rows of a heap format's snapshot table (has: where the snapshot has
 * a heap; NULL for every snapshot). */
#define HF_HEAP_TABLE_SNAP_FILES(has)                                                      \
    {"tables/objects.tsv", hf_heap_objects_tsv_view, has, hf_heap_objects_tsv_measure},    \
        {"tables/references.tsv", hf_heap_references_tsv_view, has,                        \
         hf_heap_references_tsv_measure},                                                  \
        {"tables/classes.tsv", hf_heap_classes_tsv_view, has, hf_heap_classes_tsv_measure}, \
        {"tables/retained.tsv", hf_heap_retained_tsv_view, has, hf_heap_retained_tsv_measure}

#endif
