/*
 * views.h - serving rendered views by offset, through the cache.
 *
 * A view is produced by a renderer that emits items from any item index
 * (the model.h render protocol).  The first time a view is asked for, it is
 * rendered once from start to end to learn its exact size.  A view up to
 * `whole_max` bytes is then kept whole in the cache; a bigger one is never
 * held whole: the cache keeps only its layout (the item index at the start
 * of every chunk) and reads re-render the one or two chunks they cover.
 * So memory grows with the index, not with what has been read.  A view
 * with a measure function (big tables) is never rendered whole: measuring
 * gives its size and checkpoints at a quarter of the chunk, and a read
 * renders from the checkpoint before it just the bytes it needs, so it
 * costs about what its bytes cost wherever it starts.
 *
 * Ownership: the views object borrows the cache; renderers and their
 * arguments belong to the caller.  Thread-safe: any number of threads may
 * ask for sizes and reads at once (the same view may then be rendered
 * twice, which is harmless: renders are deterministic).  No FUSE header.
 */
#ifndef HF_VIEWS_H
#define HF_VIEWS_H

#include "cache/cache.h"

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

/* Same protocol as hf_render_fn (model.h): append items from `first`, stop
 * after about `budget` bytes, return the next item or HF_DONE. */
typedef uint64_t (*hf_views_fn)(void *arg, uint64_t first, GString *out, size_t budget);
/* Optional companion of a renderer (model.h hf_measure_fn): adds to *bytes
 * the byte count of the items the renderer would append from `first` with
 * this budget, and returns the next item or HF_DONE, without rendering.
 * A view that has one is never rendered whole: its size and checkpoints
 * come from measuring, and reads render only the chunks they cover. */
typedef uint64_t (*hf_views_measure_fn)(void *arg, uint64_t first, uint64_t *bytes,
                                        size_t budget);

typedef struct hf_views hf_views;

/* chunk: render budget (and layout granularity); whole_max: biggest view
 * kept whole in the cache. */
hf_views *hf_views_new(hf_cache *cache, size_t chunk, size_t whole_max);
void hf_views_free(hf_views *v);

/* Exact size of the view under `key` (an inode number, bit 63 clear).
 * measure may be NULL (the view is then rendered once to learn it). */
uint64_t hf_views_size(hf_views *v, uint64_t key, hf_views_fn fn, hf_views_measure_fn measure,
                       void *arg);
/* Copies up to `size` bytes at `off` into buf; returns the count. */
size_t hf_views_read(hf_views *v, uint64_t key, hf_views_fn fn, hf_views_measure_fn measure,
                     void *arg, char *buf, size_t size, uint64_t off);

#endif
