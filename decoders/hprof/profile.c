/*
 * profile.c - heap.pprof and stacks.folded of an HPROF binary dump
 * (decoders/heap/profile.h): from the snapshot's ALLOC SITES records where
 * it has them (the HPROF agent writes them: live and allocated objects and
 * bytes per class and trace; what falls below the agent's cutoff is one
 * sample, "[sites below the cutoff]", so the totals are the record's), else
 * from its live objects by allocation trace.
 * Read-only on the finished dump: thread-safe.
 */
#include "decoders/hprof/hprof.h"

void hprof_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud)
{
    const hprof_dump *d = ud;
    bool any = false;
    GString *cls = g_string_new(NULL);
    hprof_sites st;
    for (uint64_t i = 0; hprof_sites_next(d, s, &i, &st); i++) {
        any = true;
        hf_pprof_values sum = {0};
        for (uint32_t k = 0; k < st.n_sites; k++) {
            hprof_site site;
            hprof_site_at(&st, k, &site);
            g_string_truncate(cls, 0);
            hprof_site_class(d, &site, cls);
            hf_pprof_values v = {site.live_instances, site.live_bytes, site.alloc_instances,
                                 site.alloc_bytes};
            hf_heap_pprof_add(o, site.trace, cls->str, &v);
            sum.inuse_objects += v.inuse_objects;
            sum.inuse_bytes += v.inuse_bytes;
            sum.alloc_objects += v.alloc_objects;
            sum.alloc_bytes += v.alloc_bytes;
        }
        /* The agent leaves out the sites below its cutoff but counts them in
         * the record's totals: one sample holds the rest, so pprof's totals
         * are the record's. */
        hf_pprof_values rest = {
            st.live_instances > sum.inuse_objects ? st.live_instances - sum.inuse_objects : 0,
            st.live_bytes > sum.inuse_bytes ? st.live_bytes - sum.inuse_bytes : 0,
            st.alloc_instances > sum.alloc_objects ? st.alloc_instances - sum.alloc_objects : 0,
            st.alloc_bytes > sum.alloc_bytes ? st.alloc_bytes - sum.alloc_bytes : 0};
        if (rest.inuse_objects || rest.inuse_bytes || rest.alloc_objects || rest.alloc_bytes)
            hf_heap_pprof_add(o, 0, "[sites below the cutoff]", &rest);
    }
    g_string_free(cls, TRUE);
    if (!any)
        hf_heap_pprof_add_objects(o, s);
}
