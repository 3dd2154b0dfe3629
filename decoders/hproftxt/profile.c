/*
 * profile.c - heap.pprof and stacks.folded of HPROF agent text output
 * (decoders/heap/profile.h): one sample per SITES row, the row's trace
 * with the allocated class as the leaf frame; without SITES, the heap
 * dump's objects by trace and class.  Frame names are read from the TRACE
 * blocks' text.
 *
 * Read-only over the finished dump: thread-safe.
 */
#include "decoders/hproftxt/hproftxt.h"

void hproftxt_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames, void *ud)
{
    const hproftxt_dump *t = ud;
    int64_t ti = hproftxt_trace_find(t, serial);
    if (ti < 0)
        return;
    const hproftxt_trace *tr = &g_array_index(t->traces, hproftxt_trace, ti);
    for (uint32_t k = 0; k < tr->n_frames; k++) {
        GString *f = g_string_new(NULL);
        hproftxt_trace_frame(t, tr, k, full, f);
        g_ptr_array_add(frames, g_string_free(f, FALSE));
    }
}

/* From SITES where the snapshot has them, else from the heap dump. */
void hproftxt_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud)
{
    hproftxt_dump *t = ud;
    hproftxt_snap *sn = &g_array_index(t->snaps, hproftxt_snap, s);
    if (sn->blk[TB_SITES].present) {
        for (guint i = 0; i < sn->sites->len; i++) {
            const hproftxt_site *st = &g_array_index(sn->sites, hproftxt_site, i);
            hf_pprof_values v = {st->live_objs, st->live_bytes, st->alloc_objs, st->alloc_bytes};
            hf_heap_pprof_add(o, st->trace, st->cls, &v);
        }
    } else if (sn->blk[TB_HEAP].present) {
        hf_heap_pprof_add_objects(o, s);
    }
}
