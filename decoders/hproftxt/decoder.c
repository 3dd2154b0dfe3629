/*
 * hproftxt_view.c - the model ops and views of HPROF agent text output.
 * Tree:
 *
 *   info                    format, file, counts
 *   traces/N                each TRACE block as the file has it
 *   threads/ID-NAME/info    from THREAD START / THREAD END
 *   threads/ID-NAME/stack   the thread's trace, where a heap dump names it
 *   snapshots/S/info        which blocks the snapshot has, and their totals
 *   snapshots/S/sites       the SITES block as the file has it
 *   snapshots/S/cpu/samples the CPU SAMPLES block as the file has it
 *   snapshots/S/cpu/times   the CPU TIME block as the file has it
 *   snapshots/S/heap.pprof  SITES as a heap profile: one sample per row, its
 *                           trace's frames with the class as the leaf frame
 *   snapshots/S/stacks.folded  the same, live bytes
 *
 * Verbatim views are served by byte offset within the block (the render
 * item is the offset of a line start), so a big block is never copied
 * whole.
 */
#include "decoders/hproftxt/hproftxt.h"
#include "decoders/heap/retained.h"

#include <inttypes.h>
#include <string.h>

static txt_dump *T(hf_dump *d)
{
    return (txt_dump *)d;
}

/* Copies file bytes [first, end) (first: an offset, 0 meaning `start`)
 * line by line until budget; returns the next line's offset or HF_DONE. */
static uint64_t verbatim(txt_dump *t, uint64_t start, uint64_t end, uint64_t first, GString *out,
                         size_t budget)
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

/* ---- heap.pprof and stacks.folded ---- */

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

/* ---- info views ---- */

static uint64_t render_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    txt_dump *t = T(d);
    g_string_append(out, "format: HPROF agent text output (java.hprof.txt)\n");
    const char *text = (const char *)t->heap.base.data;
    size_t n = strcspn(text, ",\n");
    g_string_append_printf(out, "version: %.*s\n", (int)(n > 13 && n < 64 ? n - 13 : 0),
                           text + 13);
    g_string_append_printf(out, "file: %s\n", t->heap.base.path);
    g_string_append_printf(out, "size: %zu\n", t->heap.base.size);
    if (t->created)
        g_string_append_printf(out, "created: %s\n", t->created);
    g_string_append_printf(out, "snapshots: %u\n", t->snaps->len);
    g_string_append_printf(out, "traces: %u\n", t->traces->len);
    g_string_append_printf(out, "threads: %u\n", t->threads->len);
    g_string_append_printf(out, "warnings: %" G_GUINT64_FORMAT "\n", (guint64)t->heap.base.n_problems);
    return HF_DONE;
}

static void block_line(txt_dump *t, const txt_block *b, GString *out)
{
    /* The BEGIN line itself: it has the block's date and totals. */
    const char *s = (const char *)t->heap.base.data + b->off;
    size_t n = strcspn(s, "\r\n");
    if (b->off + n > t->heap.base.size)
        n = t->heap.base.size - b->off;
    g_string_append_len(out, s, (gssize)n);
    g_string_append(out, b->closed ? "\n" : " (no END line)\n");
}

static void snap_info(txt_dump *t, txt_snap *sn, GString *out)
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
            const txt_site *st = &g_array_index(sn->sites, txt_site, i);
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
            sum += g_array_index(sn->samples, txt_cpu, i).count;
        g_string_append_printf(out, "cpu samples rows: %u\ncpu samples: %" PRIu64 "\n",
                               sn->samples->len, sum);
    }
    if (sn->blk[TB_CPU_TIME].present)
        g_string_append_printf(out, "cpu times rows: %u\ncpu time ms: %" PRIu64 "\n",
                               sn->times->len, sn->blk[TB_CPU_TIME].total);
}

static const txt_thread *view_thread(hf_dump *d, const hf_view *v)
{
    GArray *a = T(d)->threads;
    return v->index < a->len ? &g_array_index(a, txt_thread, v->index) : NULL;
}

static uint64_t render_thread_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                   size_t budget)
{
    const txt_thread *th = view_thread(d, v);
    if (!th)
        return HF_DONE;
    g_string_append_printf(out, "id: %u\n", th->serial);
    if (th->name)
        g_string_append_printf(out, "name: %s\n", th->name);
    if (th->group)
        g_string_append_printf(out, "group: %s\n", th->group);
    g_string_append_printf(out, "object: 0x%" PRIx64 "\n", th->obj);
    g_string_append_printf(out, "ended: %s\n", th->ended ? "yes" : "no");
    if (th->trace)
        g_string_append_printf(out, "trace: %u\n", th->trace);
    return HF_DONE;
}

static uint64_t render_thread_stack(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                    size_t budget)
{
    txt_dump *t = T(d);
    const txt_thread *th = view_thread(d, v);
    int64_t ti = th && th->trace ? txt_trace_find(t, th->trace) : -1;
    if (ti < 0) {
        g_string_append(out, "# the file records no stack for this thread\n");
        return HF_DONE;
    }
    const txt_trace *tr = &g_array_index(t->traces, txt_trace, ti);
    verbatim(t, tr->off, tr->end, 0, out, SIZE_MAX);
    return HF_DONE;
}

static uint64_t render_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    txt_dump *t = T(d);
    if (v->index >= t->traces->len)
        return HF_DONE;
    const txt_trace *tr = &g_array_index(t->traces, txt_trace, v->index);
    return verbatim(t, tr->off, tr->end, first, out, budget);
}

/* ---- snapshot files ---- */

static txt_snap *view_snap(hf_dump *d, uint32_t s)
{
    GArray *a = T(d)->snaps;
    return s < a->len ? &g_array_index(a, txt_snap, s) : NULL;
}

static bool has_block(hf_dump *d, uint32_t s, int b)
{
    txt_snap *sn = view_snap(d, s);
    return sn && sn->blk[b].present;
}

static bool has_sites(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_SITES); }
static bool has_samples(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_CPU_SAMPLES); }
static bool has_times(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_CPU_TIME); }
bool txt_has_heap(hf_dump *d, uint32_t s, uint64_t i) { return has_block(d, s, TB_HEAP); }
static bool has_profile(hf_dump *d, uint32_t s, uint64_t i)
{
    return has_block(d, s, TB_SITES) || has_block(d, s, TB_HEAP);
}

static uint64_t render_snap_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    txt_snap *sn = view_snap(d, v->snap);
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
    txt_snap *sn = view_snap(d, s);
    return sn ? verbatim(T(d), sn->blk[b].off, sn->blk[b].end, first, out, budget) : HF_DONE;
}

static uint64_t render_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    return render_block(d, v->snap, TB_SITES, first, out, budget);
}

static uint64_t render_samples(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    return render_block(d, v->snap, TB_CPU_SAMPLES, first, out, budget);
}

static uint64_t render_times(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    return render_block(d, v->snap, TB_CPU_TIME, first, out, budget);
}

static const hf_file snap_files[] = {
    {"info", render_snap_info, NULL},
    {"sites", render_sites, has_sites},
    {"cpu/samples", render_samples, has_samples},
    {"cpu/times", render_times, has_times},
    {"histogram", hf_heap_view_histogram, txt_has_heap},
    {"roots", hf_heap_view_roots, txt_has_heap},
    {"heap.pprof", hf_heap_view_pprof, has_profile},
    {"heap.pb.gz", hf_heap_view_pb, has_profile},
    {"stacks.folded", hf_heap_view_folded, has_profile},
    {"dominators", hf_heap_view_dominators, txt_has_heap},
    {"histogram-retained", hf_heap_view_histogram_retained, txt_has_heap},
    {"suspects", hf_heap_view_suspects, txt_has_heap},
    {"unreachable", hf_heap_view_unreachable, txt_has_heap},
    {NULL},
};

static const hf_file thread_files[] = {
    {"info", render_thread_info, NULL},
    {"stack", render_thread_stack, NULL},
    {NULL},
};

/* ---- model ops ---- */

void hproftxt_describe(hf_dump *d, GString *out)
{
    g_string_append(
        out,
        "Output of the HPROF agent (-agentlib:hprof, format=a). traces/N is each TRACE\n"
        "block as the file has it; threads/ comes from THREAD START and THREAD END. Each\n"
        "snapshot is one set of blocks the agent wrote (at exit, or on Ctrl-\\): sites,\n"
        "cpu/samples and cpu/times are its SITES, CPU SAMPLES and CPU TIME blocks as the\n"
        "file has them; heap.pprof (google-pprof --text, no binary needed) and\n"
        "stacks.folded (flamegraph.pl, live bytes) are made from SITES, one sample per\n"
        "row: the row's trace with the allocated class as the leaf frame (without SITES:\n"
        "the heap dump's objects by trace and class). Where the file has a HEAP DUMP, the\n"
        "snapshot has classes/, objects/, histogram and roots as for a binary dump, with\n"
        "what the text holds: references that are not null (no primitive values, no\n"
        "string contents); a field shadowed by a subclass's is name@DeclaringClass. Every\n"
        "object's size is the agent's sz= (class objects have none: 0), so a histogram\n"
        "adds up to the file's sz= values. Problems found (rows that do not parse, SITES\n"
        "or CPU rows naming a missing TRACE, CPU samples summing above the total, blocks\n"
        "without END) are listed in errors.\n");
}

uint32_t hproftxt_n_snapshots(hf_dump *d)
{
    return T(d)->snaps->len;
}

uint64_t hproftxt_snapshot_number(hf_dump *d, uint32_t s)
{
    return (uint64_t)s + 1;
}

uint64_t hproftxt_n_traces(hf_dump *d)
{
    return T(d)->traces->len;
}

uint64_t hproftxt_trace_number(hf_dump *d, uint64_t t)
{
    return g_array_index(T(d)->traces, txt_trace, t).serial;
}

uint64_t hproftxt_n_threads(hf_dump *d)
{
    return T(d)->threads->len;
}

void hproftxt_thread_name(hf_dump *d, uint64_t t, char name[HF_NAME_MAX])
{
    g_strlcpy(name, g_array_index(T(d)->threads, txt_thread, t).dir, HF_NAME_MAX);
}

const hf_dump_ops hproftxt_ops = {
    .format = "hprof-text",
    .destroy = hproftxt_destroy,
    .describe = hproftxt_describe,
    .render_info = render_info,
    .status = hf_heap_graph_status,
    .render_trace = render_trace,
    .n_snapshots = hproftxt_n_snapshots,
    .snapshot_number = hproftxt_snapshot_number,
    .n_traces = hproftxt_n_traces,
    .trace_number = hproftxt_trace_number,
    .n_threads = hproftxt_n_threads,
    .thread_name = hproftxt_thread_name,
    .n_classes = txt_n_classes,
    .class_name = hf_heap_class_name,
    .class_find = txt_class_find,
    .n_objects = txt_n_objects,
    .object_name = hf_heap_object_name,
    .object_find = txt_object_find,
    .snapshot = {.files = snap_files},
    .thread = {.files = thread_files},
    .class_ = {hf_heap_class_files, hf_heap_class_links, NULL},
    .object = {txt_object_files, hf_heap_object_links, txt_object_dirs},
};
