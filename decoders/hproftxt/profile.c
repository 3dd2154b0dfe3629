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

void txt_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames, void *ud)
{
    const txt_dump *t = ud;
    int64_t ti = txt_trace_find(t, serial);
    if (ti < 0)
        return;
    const txt_trace *tr = &g_array_index(t->traces, txt_trace, ti);
    for (uint32_t k = 0; k < tr->n_frames; k++) {
        GString *f = g_string_new(NULL);
        txt_trace_frame(t, tr, k, full, f);
        g_ptr_array_add(frames, g_string_free(f, FALSE));
    }
}

/* From SITES where the snapshot has them, else from the heap dump. */
void txt_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud)
{
    txt_dump *t = ud;
    txt_snap *sn = &g_array_index(t->snaps, txt_snap, s);
    if (sn->blk[TB_SITES].present) {
        for (guint i = 0; i < sn->sites->len; i++) {
            const txt_site *st = &g_array_index(sn->sites, txt_site, i);
            hf_pprof_values v = {st->live_objs, st->live_bytes, st->alloc_objs, st->alloc_bytes};
            hf_heap_pprof_add(o, st->trace, st->cls, &v);
        }
    } else if (sn->blk[TB_HEAP].present) {
        hf_heap_pprof_add_objects(o, s);
    }
}
