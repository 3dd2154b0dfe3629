/*
 * graphsort.c - the counting sorts of graph.h: the transpose and the
 * predecessors renumbered in DFS preorder for the dominator pass
 * (graphmem.h), by ranges of destinations when the arrays are files.
 * See graph.h.
 */
#include "decoders/heap/graph.h"
#include "decoders/heap/graphmem.h"

#include "decoders/core/cancel.h"
#include "decoders/core/search.h"
#include "decoders/core/workmem.h"

#include <assert.h>
#include <string.h>

#include <glib.h>

/* The counting sort of a transpose, for the transpose itself and for the
 * predecessors renumbered (hf_csr_pred_renumbered): the sources are
 * 0 .. n_src-1, the edges of v are dst[off[v] .. off[v+1]) as in a CSR,
 * an edge's destination is < n_dst or HF_NONE (left out), and a source is
 * written as label[v] (v itself when label is NULL). */
typedef struct {
    const uint32_t *off, *dst, *label;
    uint32_t n_src, n_dst;
} sort_in;

/* A range [a, b) of destinations. */
typedef struct {
    uint32_t a, b;
} dst_range;

/* One sweep over every edge: places the sources of the edges into range
 * p (off[d + 1] is d's next place) and counts the edges into range c
 * (off[d + 2]), which lies wholly after p: the counting of the next
 * range rides on the placing of this one, so a sort in R ranges sweeps
 * the edges R + 1 times, not 2R.  False when cancelled. */
static bool sweep(const sort_in *g, uint32_t *off, uint32_t *dst, dst_range p, dst_range c)
{
    /* locals: the writes through off and dst could alias g's arrays */
    const uint32_t *eoff = g->off, *edst = g->dst, *label = g->label;
    uint32_t n_src = g->n_src, m = eoff[n_src];
    if (p.a == p.b) { /* the first sweep only counts: edge by edge */
        for (uint32_t e = 0; e < m; e++) {
            if (hf_cancel_due(e))
                return false;
            assert(edst[e] < g->n_dst || edst[e] == HF_NONE);
            if (edst[e] - c.a < c.b - c.a)
                off[edst[e] + 2]++;
        }
        return true;
    }
    for (uint32_t v = 0; v < n_src; v++) {
        if (hf_cancel_due(v))
            return false;
        uint32_t src = label ? label[v] : v, end = eoff[v + 1];
        for (uint32_t e = eoff[v]; e < end; e++) {
            uint32_t d = edst[e];
            if (d - p.a < p.b - p.a)
                dst[off[d + 1]++] = src;
            else if (d - c.a < c.b - c.a)
                off[d + 2]++;
        }
    }
    return true;
}

/* The counts of range r (off[k + 2] for k in r) into starts (off[k + 1]),
 * off[r.a + 1] being r.a's start already; off[r.b + 1] becomes r.b's. */
static void starts(uint32_t *off, dst_range r)
{
    for (uint64_t k = (uint64_t)r.a + 2; k <= (uint64_t)r.b + 1; k++)
        off[k] += off[k - 1];
}

/* fn(a) here and fn(b) on a helper thread (workmem.h's phases beside),
 * both run whatever the other gives; true when both did. */
static bool on_two(bool (*fn)(void *arg), void *a, void *b)
{
    hf_beside *t = hf_work_beside_start(true, fn, b);
    bool ok = fn(a);
    return hf_work_beside_end(t, true) && ok;
}

/* Half of a sort on two threads: the sources [v0, v1), counted into or
 * placed by cur[d] (the first half's are off + 2, then off + 1; the
 * second's an array of its own). */
typedef struct {
    const sort_in *g;
    uint32_t *cur, *dst;
    uint32_t v0, v1;
    bool placing;
} half_job;

static bool half_run(void *arg)
{
    half_job *j = arg;
    const uint32_t *eoff = j->g->off, *edst = j->g->dst, *label = j->g->label;
    uint32_t *cur = j->cur, *dst = j->dst;
    for (uint32_t v = j->v0; v < j->v1; v++) {
        if (hf_cancel_due(v))
            return false;
        uint32_t src = label ? label[v] : v, end = eoff[v + 1];
        for (uint32_t e = eoff[v]; e < end; e++) {
            uint32_t d = edst[e];
            assert(d < j->g->n_dst || d == HF_NONE);
            if (d != HF_NONE && j->placing)
                dst[cur[d]++] = src;
            else if (d != HF_NONE)
                cur[d]++;
        }
    }
    return true;
}

/* The sort in one range on two threads, each on the sources [0, h) or
 * [h, n_src): each counts its edges per destination (the second into an
 * array of its own, 4 bytes a destination), a bucket's first part goes
 * to the first thread's sources, the rest to the second's, and each
 * places its own, so each list comes out in source order as on one
 * thread, and the writes never meet. */
static bool sort_halves(const sort_in *g, uint32_t *off, uint32_t *dst, uint32_t h)
{
    uint32_t n_dst = g->n_dst, *c1 = hf_work_alloc0((size_t)n_dst * sizeof *c1);
    half_job j0 = {g, off + 2, dst, 0, h, false}, j1 = {g, c1, dst, h, g->n_src, false};
    bool ok = c1 && on_two(half_run, &j0, &j1);
    uint64_t run = 0;
    for (uint32_t k = 0; ok && k < n_dst; k++) {
        uint32_t first = off[k + 2], second = c1[k];
        off[k + 1] = (uint32_t)run;
        c1[k] = (uint32_t)(run + first);
        run += (uint64_t)first + second;
    }
    j0.cur = off + 1;
    j0.placing = j1.placing = true;
    ok = ok && on_two(half_run, &j0, &j1);
    /* the second half's cursors end where the next bucket starts */
    for (uint32_t k = 0; ok && k < n_dst; k++)
        off[k + 1] = c1[k];
    off[n_dst + 1] = (uint32_t)run;
    hf_work_free(c1);
    return ok;
}

/* *out (n_dst nodes: out->n = n_dst - 1) from g's m_out edges not left
 * out, in ranges of destinations of about `chunk` bytes of the output:
 * the random writes of a sweep go to one range's part of off and dst
 * (and to the next range's counts).  split > 0: in one range, on two
 * threads, one for the sources below split, one for the rest
 * (sort_halves). */
static bool csr_sort(const sort_in *g, uint32_t m_out, size_t chunk, uint32_t split,
                     hf_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n_dst = g->n_dst;
    /* n_dst+2 entries: one extra slot for the shifted count of the last */
    uint32_t *off = try_u32((size_t)n_dst + 2);
    uint32_t *dst = try_u32(m_out);
    bool ok = off && dst;
    if (ok)
        memset(off, 0, ((size_t)n_dst + 2) * sizeof *off);
    /* destinations per range: chunk bytes of off and dst, at the mean degree */
    uint64_t per = MAX(chunk / (4 + 4 * ((uint64_t)m_out / n_dst + 1)), 1);
    dst_range r = {0, 0}, next = {0, (uint32_t)MIN(per, (uint64_t)n_dst)};
    if (ok && split) {
        ok = sort_halves(g, off, dst, split);
        r.a = n_dst;
    }
    while (ok && r.a < n_dst) {
        ok = sweep(g, off, dst, r, next);
        starts(off, next);
        r = next;
        next = (dst_range){r.b, (uint32_t)MIN(r.b + per, (uint64_t)n_dst)};
    }
    if (!ok) {
        hf_work_free(off);
        hf_work_free(dst);
        return false;
    }
    out->n = n_dst - 1; /* off keeps its spare entry */
    out->off = off;
    out->dst = dst;
    return true;
}

/* The range size for a sort of m edges into `entries` offsets: in files,
 * ranges of 1 GiB: a random write dirties only the range's pages, each
 * written back once, not again and again as the page cache cycles through
 * the whole array; in RAM one range.  A range's window stays well under
 * the kernel's background dirty limit of a machine of a few GiB and more
 * (vm.dirty_background_ratio 10: 2.4 GiB of 24), so the sweep is not
 * throttled by its own writes; larger ranges mean fewer sweeps (the 200 M
 * dump's transpose: 20 instead of 24 CPU s with ranges of 512 MiB). */
static size_t sort_chunk(uint64_t m, uint64_t entries)
{
    bool ram = hf_work_in_ram((size_t)(m ? m : 1) * 4) && hf_work_in_ram((size_t)entries * 4);
    return ram ? SIZE_MAX : (size_t)1 << 30;
}

bool hf_csr_transpose_chunked(const hf_csr *g, hf_csr *out, size_t chunk)
{
    hf_work_phase("transpose");
    sort_in in = {g->off, g->dst, NULL, g->n + 1, g->n + 1};
    return csr_sort(&in, hf_csr_edges(g), chunk, 0, out);
}

bool hf_csr_transpose(const hf_csr *g, hf_csr *out)
{
    return hf_csr_transpose_chunked(g, out, sort_chunk(hf_csr_edges(g), (uint64_t)g->n + 3));
}

/* The predecessors in DFS numbering leave out every edge u -> w into a
 * direct child w of the virtual root but the root's own, which changes
 * no immediate dominator.  Dominators: w is dominated by the root alone
 * whatever else points at it; for any other node x, a path from the root
 * through u -> w can start root -> w instead, so x's dominators are the
 * same without the edge.  Semi-NCA gives byte for byte the same answer:
 * it reads the DFS tree (made from all of succ: unchanged) and each
 * number's list of predecessors.  w's list still holds the root's number
 * 0, so semi(w) = 0 as before; every other list is as it was, so each
 * semidominator, computed from its own list and from the forest of the
 * DFS tree labelled with semidominators already known, is as it was, and
 * so is each idom that the NCA pass takes from parent and semi.  On JVM
 * dumps every instance references its class object, a root child when
 * the class is a sticky-class root: 3.0 M of the bench dump's 43.5 M
 * edges (its own classes are not roots), nearly half of a generated
 * dump's (every class a root), their sort and their disk.
 * kids: a bitmap of the root's children, NULL to keep every edge. */
static uint64_t *root_kids(const hf_csr *g)
{
    uint64_t *kids = hf_work_alloc0(((size_t)g->n / 64 + 1) * sizeof *kids);
    for (uint32_t e = kids ? g->off[g->n] : 0; kids && e < g->off[g->n + 1]; e++)
        kids[g->dst[e] / 64] |= (uint64_t)1 << (g->dst[e] % 64);
    return kids;
}

static inline bool is_kid(const uint64_t *kids, uint32_t w)
{
    return kids[w / 64] >> (w % 64) & 1;
}

/* The renumbering of the edges of the sources [v0, v1): to[e] = the
 * number of e's destination, HF_NONE to leave it out; m_out counts the
 * others. */
typedef struct {
    const hf_csr *g;
    const uint32_t *num;
    const uint64_t *kids;
    uint32_t *to;
    uint32_t count, v0, v1, m_out;
} renum_part;

static bool renumber_part(void *arg)
{
    renum_part *r = arg;
    const uint32_t *off = r->g->off, *dst = r->g->dst, *num = r->num;
    uint32_t n = r->g->n, stop = off[r->v1], m_out = 0;
    /* in node order: num[v] in order, num[w] at random but seen coming */
    for (uint32_t v = r->v0; v < r->v1; v++) {
        if (hf_cancel_due(v))
            return false;
        uint32_t nv = num[v], end = off[v + 1];
        const uint64_t *skip = v == n ? NULL : r->kids;
        for (uint32_t e = off[v]; e < end; e++) {
            if (e + 4 * AHEAD < stop) { /* ours, not yet overwritten */
                PREFETCH(&num[dst[e + 4 * AHEAD]]);
                if (skip)
                    PREFETCH(&skip[dst[e + 4 * AHEAD] / 64]);
            }
            assert(dst[e] <= n);
            uint32_t w = nv == HF_NONE || (skip && is_kid(skip, dst[e])) ? HF_NONE : num[dst[e]];
            assert(w < r->count || w == HF_NONE);
            r->to[e] = w; /* may overwrite dst[e]: read already */
            m_out += w != HF_NONE;
        }
    }
    r->m_out = m_out;
    return true;
}

/* With the arrays in RAM and a second processor to spare
 * (hf_work_beside_pays), the renumbering runs on two threads, each on the
 * sources of half the edges, and so does the sort (sort_halves), which
 * then takes 4 bytes a number more. */
static bool renumber(const hf_csr *g, uint32_t *scratch, const uint32_t *num, uint32_t count,
                     size_t chunk, const uint64_t *kids, hf_csr *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = g->n, m = hf_csr_edges(g);
    uint32_t *own = scratch ? NULL : try_u32_seq(m);
    uint32_t *to = scratch ? scratch : own;
    if (!to)
        return false;
    bool two = hf_work_beside_pays((uint64_t)n + 1, (uint64_t)count * 4);
    renum_part r0 = {g, num, kids, to, count, 0, n + 1, 0}, r1 = r0;
    if (two) /* the first node whose edges start in the second half */
        r0.v1 = r1.v0 = (uint32_t)MIN(hf_lower_bound_u32(g->off, n + 2, m / 2), n + 1);
    bool ok = two ? on_two(renumber_part, &r0, &r1) : renumber_part(&r0);
    uint32_t m_out = r0.m_out + (two ? r1.m_out : 0);
    chunk = chunk ? chunk : sort_chunk(m_out, (uint64_t)count + 2);
    sort_in in = {g->off, to, num, n + 1, count};
    ok = ok && csr_sort(&in, m_out, chunk, two && chunk == SIZE_MAX ? r0.v1 : 0, out);
    hf_work_free(own);
    return ok;
}

bool hf_pred_renumber(const hf_csr *g, uint32_t *scratch, const uint32_t *num, uint32_t count,
                      size_t chunk, hf_csr *out)
{
    uint64_t *kids = root_kids(g);
    bool ok = kids && renumber(g, scratch, num, count, chunk, kids, out);
    hf_work_free(kids);
    return ok;
}

bool hf_csr_pred_renumbered(const hf_csr *g, const uint32_t *num, uint32_t count, size_t chunk,
                            hf_csr *out)
{
    return renumber(g, NULL, num, count, chunk, NULL, out);
}
