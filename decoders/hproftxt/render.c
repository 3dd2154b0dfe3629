/*
 * render.c - the views of HPROF agent text output that are not the heap
 * layer's.  Tree:
 *
 *   info                    format, file, counts
 *   traces/N                each TRACE block as the file has it
 *   threads/ID-NAME/info    from THREAD START / THREAD END
 *   threads/ID-NAME/stack   the thread's trace, where a heap dump names it
 *   snapshots/S/info        which blocks the snapshot has, and their totals
 *   snapshots/S/sites       the SITES rows as a table (docs/views.md)
 *   snapshots/S/cpu/samples the CPU SAMPLES rows as a table
 *   snapshots/S/cpu/times   the CPU TIME rows as a table
 *   snapshots/S/sites.agent, cpu/samples.agent, cpu/times.agent
 *                           those blocks as the file has them
 *
 * heap.pprof and stacks.folded are profile.c's; classes, objects, roots
 * and the histogram the heap layer's (objects' fields and refs/:
 * objects.c).  Verbatim views are served by byte offset within the block
 * (the render item is the offset of a line start), so a big block is never
 * copied whole.
 *
 * Read-only over the finished dump: thread-safe.
 */
#include "decoders/hproftxt/hproftxt.h"
#include "decoders/core/names.h"
#include "decoders/core/tsv.h"
#include "decoders/heap/render.h"

#include <inttypes.h>
#include <string.h>

static hproftxt_dump *T(hf_dump *d)
{
    return (hproftxt_dump *)d;
}

/* Copies file bytes [first, end) (first: an offset, 0 meaning `start`)
 * line by line until budget; returns the next line's offset or HF_DONE. */
static uint64_t verbatim(hproftxt_dump *t, uint64_t start, uint64_t end, uint64_t first,
                         GString *out, size_t budget)
{
    const char *data = (const char *)t->heap.base.data;
    uint64_t pos = first ? first : start;
    size_t begin = out->len;
    while (pos < end) {
        const char *nl = memchr(data + pos, '\n', end - pos);
        uint64_t next = nl ? (uint64_t)(nl - data) + 1 : end;
        g_string_append_len(out, data + pos, (gssize)(next - pos));
        if (!nl)
            g_string_append_c(out, '\n'); /* the file's last line had none */
        pos = next;
        if (out->len - begin >= budget && pos < end)
            return pos;
    }
    return HF_DONE;
}

/* ---- info views ---- */

uint64_t hproftxt_render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    hproftxt_dump *t = T(d);
    hf_info_format(out, d->ops->format);
    const char *text = (const char *)t->heap.base.data;
    size_t n = strcspn(text, ",\n");
    g_string_append_printf(out, "version: %.*s\n", (int)(n > 13 && n < 64 ? n - 13 : 0),
                           text + 13);
    g_string_append_printf(out, "file: %s\n", t->heap.base.path);
    g_string_append_printf(out, "size: %zu\n", t->heap.base.size);
    if (t->created) {
        g_string_append(out, "created: ");
        hf_escape_str(out, t->created);
        g_string_append_c(out, '\n');
    }
    g_string_append_printf(out, "snapshots: %u\n", t->snaps->len);
    g_string_append_printf(out, "traces: %u\n", t->traces->len);
    g_string_append_printf(out, "threads: %u\n", t->threads->len);
    g_string_append_printf(out, "warnings: %" G_GUINT64_FORMAT "\n", (guint64)t->heap.base.n_problems);
    return HF_DONE;
}

static void block_line(hproftxt_dump *t, const hproftxt_block *b, GString *out)
{
    /* The BEGIN line itself: it has the block's date and totals. */
    const char *s = (const char *)t->heap.base.data + b->off;
    size_t n = strcspn(s, "\r\n");
    if (b->off + n > t->heap.base.size)
        n = t->heap.base.size - b->off;
    g_string_append_len(out, s, (gssize)n);
    g_string_append(out, b->closed ? "\n" : " (no END line)\n");
}

static void snap_info(hproftxt_dump *t, hproftxt_snap *sn, GString *out)
{
    static const char *const keys[TB_N] = {"sites", "cpu samples", "cpu times",
                                           "heap dump", "monitor dump", "monitor time"};
    for (int b = 0; b < TB_N; b++) {
        if (!sn->blk[b].present)
            continue;
        g_string_append_printf(out, "%s: ", keys[b]);
        block_line(t, &sn->blk[b], out);
    }
    if (sn->blk[TB_SITES].present) {
        uint64_t v[4] = {0};
        for (guint i = 0; i < sn->sites->len; i++) {
            const hproftxt_site *st = &g_array_index(sn->sites, hproftxt_site, i);
            v[0] += st->live_objs;
            v[1] += st->live_bytes;
            v[2] += st->alloc_objs;
            v[3] += st->alloc_bytes;
        }
        g_string_append_printf(out, "sites rows: %u\n", sn->sites->len);
        g_string_append_printf(out, "live objects: %" PRIu64 "\nlive bytes: %" PRIu64 "\n", v[0],
                               v[1]);
        g_string_append_printf(out,
                               "allocated objects: %" PRIu64 "\nallocated bytes: %" PRIu64 "\n",
                               v[2], v[3]);
    }
    if (sn->blk[TB_CPU_SAMPLES].present) {
        uint64_t sum = 0;
        for (guint i = 0; i < sn->samples->len; i++)
            sum += g_array_index(sn->samples, hproftxt_cpu, i).count;
        g_string_append_printf(out, "cpu samples rows: %u\ncpu samples: %" PRIu64 "\n",
                               sn->samples->len, sum);
    }
    if (sn->blk[TB_CPU_TIME].present)
        g_string_append_printf(out, "cpu times rows: %u\ncpu time ms: %" PRIu64 "\n",
                               sn->times->len, sn->blk[TB_CPU_TIME].total);
}

static const hproftxt_thread *view_thread(hf_dump *d, const hf_view *v)
{
    GArray *a = T(d)->threads;
    return v->index < a->len ? &g_array_index(a, hproftxt_thread, v->index) : NULL;
}

uint64_t hproftxt_view_thread_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    const hproftxt_thread *th = view_thread(d, v);
    if (!th)
        return HF_DONE;
    g_string_append_printf(out, "id: %u\n", th->serial);
    hf_escape_key(out, "name", th->name);
    hf_escape_key(out, "group", th->group);
    g_string_append_printf(out, "object: 0x%" PRIx64 "\n", th->obj);
    g_string_append_printf(out, "ended: %s\n", th->ended ? "yes" : "no");
    if (th->trace)
        g_string_append_printf(out, "trace: %u\n", th->trace);
    return HF_DONE;
}

uint64_t hproftxt_view_thread_stack(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget)
{
    hproftxt_dump *t = T(d);
    const hproftxt_thread *th = view_thread(d, v);
    int64_t ti = th && th->trace ? hproftxt_trace_find(t, th->trace) : -1;
    if (ti < 0) {
        g_string_append(out, "# the file records no stack for this thread\n");
        return HF_DONE;
    }
    const hproftxt_trace *tr = &g_array_index(t->traces, hproftxt_trace, ti);
    verbatim(t, tr->off, tr->end, 0, out, SIZE_MAX);
    return HF_DONE;
}

uint64_t hproftxt_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    hproftxt_dump *t = T(d);
    if (v->index >= t->traces->len)
        return HF_DONE;
    const hproftxt_trace *tr = &g_array_index(t->traces, hproftxt_trace, v->index);
    return verbatim(t, tr->off, tr->end, first, out, budget);
}

/* ---- snapshot files ---- */

static hproftxt_snap *view_snap(hf_dump *d, uint32_t s)
{
    GArray *a = T(d)->snaps;
    return s < a->len ? &g_array_index(a, hproftxt_snap, s) : NULL;
}

static bool has_block(hf_dump *d, uint32_t s, int b)
{
    hproftxt_snap *sn = view_snap(d, s);
    return sn && sn->blk[b].present;
}

bool hproftxt_has_sites(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_SITES); }
bool hproftxt_has_samples(hf_dump *d, uint32_t s, uint64_t i)
{
    return has_block(d, s, TB_CPU_SAMPLES);
}
bool hproftxt_has_times(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_CPU_TIME); }
bool hproftxt_has_heap(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_HEAP); }
bool hproftxt_has_profile(hf_dump *d, uint32_t s, uint64_t i)
{
    return has_block(d, s, TB_SITES) || has_block(d, s, TB_HEAP);
}

uint64_t hproftxt_view_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    hproftxt_snap *sn = view_snap(d, v->snap);
    if (!sn)
        return HF_DONE;
    snap_info(T(d), sn, out);
    if (sn->blk[TB_HEAP].present)
        hf_heap_render_snap_info(&T(d)->heap, v->snap, out);
    return HF_DONE;
}

/* A block of the snapshot as the file has it. */
static uint64_t render_block(hf_dump *d, uint32_t s, int b, uint64_t first, GString *out,
                             size_t budget)
{
    hproftxt_snap *sn = view_snap(d, s);
    return sn ? verbatim(T(d), sn->blk[b].off, sn->blk[b].end, first, out, budget) : HF_DONE;
}

/* sites: the SITES rows in the file's order, with the binary format's
 * columns (decoders/hprof/render.c); rows are few (the agent cuts off). */
uint64_t hproftxt_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                        size_t budget)
{
    hproftxt_snap *sn = view_snap(d, v->snap);
    g_string_append(out, "# trace\tinuse_objects\tinuse_space\talloc_objects\talloc_space\t"
                         "class\n");
    for (guint i = 0; sn && i < sn->sites->len; i++) {
        const hproftxt_site *st = &g_array_index(sn->sites, hproftxt_site, i);
        g_string_append_printf(out, "%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t",
                               st->trace, st->live_objs, st->live_bytes, st->alloc_objs,
                               st->alloc_bytes);
        hf_escape_str(out, st->cls);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

/* cpu/samples and cpu/times: the rows of a CPU block, the agent's self
 * percentage with a dot whatever the file's locale wrote. */
static uint64_t render_cpu(hf_dump *d, uint32_t s, bool times, GString *out)
{
    hproftxt_snap *sn = view_snap(d, s);
    g_string_append(out, "# trace\tcount\tpercent\tmethod\n");
    GArray *rows = sn ? (times ? sn->times : sn->samples) : NULL;
    for (guint i = 0; rows && i < rows->len; i++) {
        const hproftxt_cpu *r = &g_array_index(rows, hproftxt_cpu, i);
        g_string_append_printf(out, "%u\t%" PRIu64 "\t%u.%02u\t", r->trace, r->count,
                               r->self / 100, r->self % 100);
        hf_escape_str(out, r->method);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

uint64_t hproftxt_view_samples(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    return render_cpu(d, v->snap, false, out);
}

uint64_t hproftxt_view_times(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    return render_cpu(d, v->snap, true, out);
}

uint64_t hproftxt_view_sites_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    return render_block(d, v->snap, TB_SITES, first, out, budget);
}

uint64_t hproftxt_view_samples_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                size_t budget)
{
    return render_block(d, v->snap, TB_CPU_SAMPLES, first, out, budget);
}

uint64_t hproftxt_view_times_agent(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                              size_t budget)
{
    return render_block(d, v->snap, TB_CPU_TIME, first, out, budget);
}

/* ---- tables (docs/tables.md): SITES and CPU rows as the scan read them ---- */

/* (named and ordered as the `sites` view's columns, docs/views.md) */
static const char *const site_cols[] = {"trace",         "inuse_objects", "inuse_space",
                                        "alloc_objects", "alloc_space",   "class"};

static uint64_t sites_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                           size_t budget)
{
    hproftxt_snap *sn = view_snap(d, v->snap);
    uint64_t start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, site_cols, G_N_ELEMENTS(site_cols));
    for (uint64_t i = first ? first - 1 : 0; sn && i < sn->sites->len; i++) {
        if (hf_tsv_stop(t, start, budget, i + 1))
            return i + 1;
        const hproftxt_site *r = &g_array_index(sn->sites, hproftxt_site, i);
        const uint64_t n[5] = {r->trace, r->live_objs, r->live_bytes, r->alloc_objs,
                               r->alloc_bytes};
        for (int k = 0; k < 5; k++) {
            hf_tsv_put_u64(t, n[k]);
            hf_tsv_c(t, '\t');
        }
        hf_tsv_put_str(t, r->cls);
        hf_tsv_c(t, '\n');
    }
    return HF_DONE;
}

HF_TSV_VIEW(hproftxt_sites_tsv, sites_rows)

static const char *const cpu_cols[] = {"count", "trace"};

/* CPU SAMPLES (b = 0) or CPU TIME (b = 1) rows. */
static uint64_t cpu_rows(hf_dump *d, const hf_view *v, int b, uint64_t first, hf_tsv *t,
                         size_t budget)
{
    hproftxt_snap *sn = view_snap(d, v->snap);
    GArray *a = sn ? (b ? sn->times : sn->samples) : NULL;
    uint64_t start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, cpu_cols, G_N_ELEMENTS(cpu_cols));
    for (uint64_t i = first ? first - 1 : 0; a && i < a->len; i++) {
        if (hf_tsv_stop(t, start, budget, i + 1))
            return i + 1;
        const hproftxt_cpu *r = &g_array_index(a, hproftxt_cpu, i);
        hf_tsv_put_u64(t, r->count);
        hf_tsv_c(t, '\t');
        hf_tsv_put_u64(t, r->trace);
        hf_tsv_c(t, '\n');
    }
    return HF_DONE;
}

static uint64_t samples_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                             size_t budget)
{
    return cpu_rows(d, v, 0, first, t, budget);
}

static uint64_t times_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                           size_t budget)
{
    return cpu_rows(d, v, 1, first, t, budget);
}

HF_TSV_VIEW(hproftxt_samples_tsv, samples_rows)
HF_TSV_VIEW(hproftxt_times_tsv, times_rows)

/* ---- the README paragraph ---- */

void hproftxt_describe(hf_dump *d, GString *out)
{
    g_string_append(
        out,
        "Output of the HPROF agent (-agentlib:hprof, format=a). traces/N is each TRACE\n"
        "block as the file has it; threads/ comes from THREAD START and THREAD END. Each\n"
        "snapshot is one set of blocks the agent wrote (at exit, or on Ctrl-\\): sites,\n"
        "cpu/samples and cpu/times are the rows of its SITES, CPU SAMPLES and CPU TIME\n"
        "blocks as tables (sites.agent, cpu/samples.agent and cpu/times.agent: the blocks\n"
        "as the file has them); heap.pprof (google-pprof --text, no binary needed) and\n"
        "stacks.folded (flamegraph.pl, live bytes) are made from SITES, one sample per\n"
        "row: the row's trace with the allocated class as the leaf frame (without SITES:\n"
        "the heap dump's objects by trace and class); flame.svg draws stacks.folded (for a\n"
        "browser). Where the file has a HEAP DUMP, the\n"
        "snapshot has classes/, objects/, histogram and roots as for a binary dump, with\n"
        "what the text holds: references that are not null (no primitive values, no\n"
        "string contents); a field shadowed by a subclass's is name@DeclaringClass. Every\n"
        "object's size is the agent's sz= (class objects have none: 0), so a histogram\n"
        "adds up to the file's sz= values. Problems found (rows that do not parse, SITES\n"
        "or CPU rows naming a missing TRACE, CPU samples summing above the total, blocks\n"
        "without END) are listed in errors.\n");
}
