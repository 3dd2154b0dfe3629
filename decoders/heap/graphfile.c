/*
 * graphfile.c - see graphfile.h.
 */
#include "decoders/heap/graphfile.h"

#include <string.h>

/* (4, 5 and 7 held the children's offsets and targets and 4-byte parents
 * until those were packed, 8 the retained sizes in 8 bytes: a file with
 * them lacks the sections below and is rebuilt) */
enum { S_META = 1, S_PRED_OFF, S_PRED_DST, S_IDOM = 6, S_CLASS_RETAINED = 9, S_PARENT_SLOT,
       S_PARENT_FAR, S_KIDS, S_RETAINED48 };

void hf_graphfile_save(const hf_hgraph *g, uint32_t n_classes, hf_keepw *w)
{
    GByteArray *b = g_byte_array_new();
    uint64_t secs;
    memcpy(&secs, &g->seconds, 8);
    hf_keepb_u32(b, g->n);
    hf_keepb_u32(b, n_classes);
    hf_keepb_u64(b, g->reachable);
    hf_keepb_u64(b, g->unreachable);
    hf_keepb_u64(b, g->unreachable_bytes);
    hf_keepb_u64(b, g->edges);
    hf_keepb_u64(b, secs);
    hf_keepb_u64(b, g->bytes);
    hf_keepw_add_bytes(w, S_META, b);
    size_t n1 = (size_t)g->n + 1;
    hf_keepw_add_crc(w, S_PRED_OFF, g->pred.off, 4 * (n1 + 1));
    hf_keepw_add_crc(w, S_PRED_DST, g->pred.dst, 4ull * hf_csr_edges(&g->pred));
    hf_keepw_add_crc(w, S_KIDS, g->kids, 4ull * g->n_kids);
    hf_keepw_add_crc(w, S_IDOM, g->idom, 4 * n1);
    hf_keepw_add_crc(w, S_PARENT_SLOT, g->parent.slot, n1);
    hf_keepw_add_crc(w, S_PARENT_FAR, g->parent.far, 8ull * g->parent.n_far);
    hf_keepw_add_crc(w, S_RETAINED48, g->retained, sizeof(hf_size48) * n1);
    hf_keepw_add_crc(w, S_CLASS_RETAINED, g->class_retained, 8ull * (n_classes ? n_classes : 1));
}

/* Section id of exactly `want` bytes, in place; NULL otherwise. */
static void *array(const hf_keepr *r, uint32_t id, uint64_t want)
{
    uint64_t len;
    const uint8_t *p = hf_keepr_section(r, id, &len);
    return p && len == want ? (void *)p : NULL;
}

/* A CSR over n+1 nodes: offsets, then targets of the length they say. */
static bool csr(const hf_keepr *r, uint32_t off_id, uint32_t dst_id, uint32_t n, hf_csr *out)
{
    out->n = n;
    out->off = array(r, off_id, 4 * ((uint64_t)n + 2));
    if (!out->off || out->off[0] != 0)
        return false;
    out->dst = array(r, dst_id, 4ull * out->off[n + 1]);
    return out->dst != NULL;
}

bool hf_graphfile_load(hf_hgraph *g, const hf_keepr *r, uint32_t n, uint32_t n_classes)
{
    hf_keepcur c = hf_keepcur_of(r, S_META);
    if (hf_keepcur_u32(&c) != n || hf_keepcur_u32(&c) != n_classes)
        return false;
    g->n = n;
    g->reachable = hf_keepcur_u64(&c);
    g->unreachable = hf_keepcur_u64(&c);
    g->unreachable_bytes = hf_keepcur_u64(&c);
    g->edges = hf_keepcur_u64(&c);
    uint64_t secs = hf_keepcur_u64(&c);
    memcpy(&g->seconds, &secs, 8);
    g->bytes = hf_keepcur_u64(&c);
    uint64_t n1 = (uint64_t)n + 1;
    g->idom = array(r, S_IDOM, 4 * n1);
    g->parent.slot = array(r, S_PARENT_SLOT, n1);
    uint64_t kids_len;
    g->kids = (uint32_t *)(void *)hf_keepr_section(r, S_KIDS, &kids_len);
    g->n_kids = (uint32_t)(kids_len / 4);
    uint64_t far_len;
    g->parent.far = (uint64_t *)(void *)hf_keepr_section(r, S_PARENT_FAR, &far_len);
    g->parent.n_far = (uint32_t)(far_len / 8);
    g->retained = array(r, S_RETAINED48, sizeof(hf_size48) * n1);
    g->class_retained = array(r, S_CLASS_RETAINED, 8ull * (n_classes ? n_classes : 1));
    return c.ok && c.p == c.end && csr(r, S_PRED_OFF, S_PRED_DST, n, &g->pred) &&
           g->kids && kids_len % 4 == 0 && kids_len / 4 <= n && g->idom &&
           g->parent.slot &&
           g->parent.far && far_len % 8 == 0 && far_len / 8 < n1 &&
           g->retained && g->class_retained && g->edges == hf_csr_edges(&g->pred) &&
           g->reachable <= n;
}
