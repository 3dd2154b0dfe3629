/*
 * persist.h - the heap layer's part of the index file (core/keepfile.h):
 * everything hf_heap_finish leaves in an hf_heap, saved as sections and
 * loaded back so that the loaded heap answers every query and renders
 * every view byte for byte as the freshly built one.
 *
 * Sections: HF_KEEP_HEAP holds the small structures (size rule, problems,
 * frames, traces, threads, and per snapshot its classes with their fields
 * and statics, histogram order, roots, Android heaps), rebuilt into
 * ordinary memory at load and checked value by value.  The O(objects)
 * arrays of snapshot s (locators, class indices, id samples) are sections
 * HF_KEEP_SNAP + 4s + 0..2, used in place from the mapping, never copied;
 * their readers check every value they use (hf_heap_cls, the codecs), so
 * a damaged byte there gives wrong answers for one object, never a crash.
 * Formats add their own sections with ids from HF_KEEP_FORMAT up.
 *
 * Ownership: after hf_heap_load the snapshot arrays point into the
 * reader's mapping, which the decoder keeps until it calls hf_heap_unmap
 * and then hf_heap_clear.  Single-threaded, inside open.
 */
#ifndef HF_HEAP_PERSIST_H
#define HF_HEAP_PERSIST_H

#include "decoders/core/keepfile.h"
#include "decoders/heap/heap.h"

enum { HF_KEEP_HEAP = 1, HF_KEEP_FORMAT = 8, HF_KEEP_SNAP = 64 };

/* Adds h's sections to w (w borrows the big arrays: keep h alive until
 * the file is written). */
void hf_heap_save(const hf_heap *h, hf_keepw *w);
/* Fills h, just made by hf_heap_init, as hf_heap_finish would have, from
 * r.  False when anything is missing or inconsistent: then call
 * hf_heap_unmap and throw h away. */
bool hf_heap_load(hf_heap *h, const hf_keepr *r);
/* Forgets the arrays that point into the mapping (before hf_heap_clear). */
void hf_heap_unmap(hf_heap *h);

#endif
