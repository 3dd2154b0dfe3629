/*
 * hprof_ops.c - the HPROF binary decoder: detection, open, the codec that
 * reads objects back from the map, and the HPROF-specific views (MOUNT/info,
 * snapshot info header, sites).  Classes, objects, roots, strings, traces
 * and threads are rendered by heap_render.c from the neutral graph.
 *
 * The dump is immutable after hprof_open(); every function here is
 * thread-safe.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/heap/retained.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* ---- the codec: objects back from their sub-records ---- */

static uint64_t codec_object_id(const hf_heap *h, uint64_t loc)
{
    return hprof_id(h->base.data + loc + 1, h->id_size);
}

static bool codec_shape(const hf_heap *h, uint64_t loc, hf_hshape *out)
{
    const uint8_t *p = h->base.data + loc;
    const unsigned idsz = h->id_size;
    const uint8_t *q = p + 1 + idsz + 4; /* past tag, id, stack serial */
    switch (p[0]) {
    case HPROF_GC_INSTANCE_DUMP:
        out->kind = HF_K_INSTANCE;
        out->class_id = hprof_id(q, idsz);
        return true;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        out->kind = HF_K_OBJARRAY;
        out->length = hprof_u4(q);
        out->class_id = hprof_id(q + 4, idsz);
        return true;
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_PRIM_ARRAY_NODATA:
        out->kind = HF_K_PRIMARRAY;
        out->length = hprof_u4(q);
        out->elem = q[4];
        return true;
    case HPROF_GC_CLASS_DUMP:
        out->kind = HF_K_CLASS;
        return true;
    }
    return false;
}

static bool codec_object(const hf_heap *h, uint64_t loc, hf_hobj *ob)
{
    const uint8_t *p = h->base.data + loc;
    const uint8_t *fend = h->base.data + h->base.size;
    const unsigned idsz = h->id_size;
    size_t n = hprof_subrecord_len(p, fend, idsz);
    if (!n)
        return false;
    const uint8_t *q = p + 1 + idsz + 4;
    ob->loc = loc;
    ob->id = hprof_id(p + 1, idsz);
    ob->trace = hprof_u4(p + 1 + idsz);
    switch (p[0]) {
    case HPROF_GC_INSTANCE_DUMP:
        ob->kind = HF_K_INSTANCE;
        ob->length = hprof_u4(q + idsz);
        ob->data = q + idsz + 4;
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        ob->kind = HF_K_OBJARRAY;
        ob->elem = HF_T_OBJECT;
        ob->length = hprof_u4(q);
        ob->data = q + 4 + idsz;
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_PRIM_ARRAY_NODATA:
        ob->kind = HF_K_PRIMARRAY;
        ob->length = hprof_u4(q);
        ob->elem = q[4];
        ob->nodata = p[0] == HPROF_GC_PRIM_ARRAY_NODATA;
        ob->data = ob->nodata ? NULL : q + 5;
        break;
    case HPROF_GC_CLASS_DUMP:
        ob->kind = HF_K_CLASS;
        ob->data = NULL;
        ob->end = NULL;
        return true;
    default:
        return false;
    }
    ob->end = ob->data ? p + n : NULL;
    return true;
}

static bool codec_value(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                        uint64_t *v)
{
    unsigned w = hf_btype_size(t, h->id_size);
    if (!w || !*p || (size_t)(end - *p) < w)
        return false;
    *v = hprof_value(*p, t, h->id_size);
    *p += w;
    return true;
}

static bool codec_element(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v)
{
    unsigned w = hf_btype_size(ob->elem, h->id_size);
    if (!ob->data || i >= ob->length || !w)
        return false;
    *v = hprof_value(ob->data + i * w, ob->elem, h->id_size);
    return true;
}

const hf_heap_codec hprof_codec = {
    .fixed_be = true,
    .object_id = codec_object_id,
    .shape = codec_shape,
    .object = codec_object,
    .value = codec_value,
    .element = codec_element,
};

/* ---- detection and open ---- */

static const char *const versions[] = {"JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2",
                                       "JAVA PROFILE 1.0.3"};

/* Header length (string, NUL, u4 id size, u8 time) when head is HPROF. */
static size_t header_len(const uint8_t *head, size_t len, unsigned *idsz)
{
    for (size_t v = 0; v < G_N_ELEMENTS(versions); v++) {
        size_t n = strlen(versions[v]) + 1;
        if (len >= n + 4 && memcmp(head, versions[v], n) == 0) {
            uint32_t s = hprof_u4(head + n);
            if (s != 4 && s != 8)
                return 0;
            *idsz = s;
            return n + 12;
        }
    }
    return 0;
}

static bool hprof_detect(const uint8_t *head, size_t len)
{
    unsigned idsz;
    return header_len(head, len, &idsz) != 0;
}

static void hprof_destroy(hf_dump *base)
{
    hprof_dump *d = (hprof_dump *)base;
    g_free(d->strings);
    if (d->load_classes)
        g_array_free(d->load_classes, TRUE);
    if (d->sites)
        g_array_free(d->sites, TRUE);
    if (d->sites_snap)
        g_array_free(d->sites_snap, TRUE);
    hf_heap_clear(&d->heap);
    g_free(d);
}

extern const hf_dump_ops hprof_ops;

static hf_dump *hprof_open(const char *path, GMappedFile *map, GError **err)
{
    const uint8_t *data = (const uint8_t *)g_mapped_file_get_contents(map);
    size_t size = g_mapped_file_get_length(map);
    unsigned idsz = 0;
    size_t hl = header_len(data, size, &idsz);
    if (!hl || size < hl) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT,
                    "%s: HPROF header cut off (%zu bytes)", path, size);
        return NULL;
    }
    /* One sequential pass: map the whole file in one go where the kernel
     * can (Linux 5.14+), which beats a page fault per 64 KiB; else ask for
     * read-ahead.  Purely advice: failures change nothing. */
    void *mstart = (void *)((uintptr_t)data & ~(uintptr_t)4095);
    size_t mlen = size + ((uintptr_t)data & 4095);
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
    if (madvise(mstart, mlen, MADV_POPULATE_READ) != 0)
        madvise(mstart, mlen, MADV_SEQUENTIAL);
    hprof_dump *d = g_new0(hprof_dump, 1);
    hf_heap_init(&d->heap, &hprof_ops, &hprof_codec, path, map, idsz);
    g_strlcpy(d->version, (const char *)data, sizeof d->version);
    d->header_len = hl;
    d->time_ms = (uint64_t)hprof_u4(data + hl - 8) << 32 | hprof_u4(data + hl - 4);
    hprof_index(d);
    d->heap.pprof = hf_heap_pprof_new(&d->heap, d->heap.snaps->len, "java", hprof_build_pprof, d,
                                 NULL, NULL);
    madvise(mstart, mlen, MADV_RANDOM); /* views read a record here and there */
    return &d->heap.base;
}

const hf_decoder hf_decoder_hprof = {
    .format = "hprof",
    .detect = hprof_detect,
    .open = hprof_open,
};

/* ---- views ---- */

static void format_time(uint64_t ms, GString *out)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    g_string_append_printf(out, "%s.%03uZ", buf, (unsigned)(ms % 1000));
}

static uint64_t render_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    hf_heap *h = &d->heap;
    uint64_t classes, objects, roots;
    hf_heap_totals(h, &classes, &objects, &roots);
    g_string_append(out, "format: hprof\n");
    g_string_append_printf(out, "version: %s\n", d->version);
    g_string_append_printf(out, "file: %s\n", h->base.path);
    g_string_append_printf(out, "size: %zu\n", h->base.size);
    g_string_append_printf(out, "identifier size: %u\n", h->id_size);
    g_string_append(out, "time: ");
    format_time(d->time_ms, out);
    g_string_append_c(out, '\n');
    g_string_append_printf(out, "snapshots: %u\n", h->snaps->len);
    g_string_append_printf(out, "classes: %" G_GUINT64_FORMAT "\n", classes);
    g_string_append_printf(out, "objects: %" G_GUINT64_FORMAT "\n", objects);
    g_string_append_printf(out, "traces: %u\n", h->traces->len);
    g_string_append_printf(out, "threads: %u\n", h->threads->len);
    g_string_append_printf(out, "roots: %" G_GUINT64_FORMAT "\n", roots);
    g_string_append_printf(out, "strings: %" G_GUINT64_FORMAT "\n", d->n_strings);
    g_string_append_printf(out, "index bytes: %" G_GUINT64_FORMAT "\n", hf_heap_index_bytes(h));
    g_string_append_printf(out, "problems: %" G_GUINT64_FORMAT "\n", (guint64)h->base.n_problems);
    g_string_append(out, "size rule: ");
    hf_heap_size_rule(h, out);
    g_string_append_c(out, '\n');
    static const struct { uint8_t tag; const char *name; } recs[] = {
        {HPROF_LOAD_CLASS, "load class"}, {HPROF_UNLOAD_CLASS, "unload class"},
        {HPROF_STACK_FRAME, "stack frame"}, {HPROF_STACK_TRACE, "stack trace"},
        {HPROF_ALLOC_SITES, "alloc sites"}, {HPROF_HEAP_SUMMARY, "heap summary"},
        {HPROF_START_THREAD, "start thread"}, {HPROF_END_THREAD, "end thread"},
        {HPROF_HEAP_DUMP, "heap dump"}, {HPROF_HEAP_DUMP_SEGMENT, "heap dump segment"},
        {HPROF_HEAP_DUMP_END, "heap dump end"}, {HPROF_CPU_SAMPLES, "cpu samples"},
        {HPROF_CONTROL_SETTINGS, "control settings"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(recs); i++)
        g_string_append_printf(out, "records %s: %" G_GUINT64_FORMAT "\n", recs[i].name,
                               d->n_records[recs[i].tag]);
    if (d->truncated)
        g_string_append(out, "warning: the file ends inside a record (truncated dump)\n");
    return HF_DONE;
}

static uint64_t render_snap_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    uint32_t s = v->snap;
    static const struct { uint8_t tag; const char *name; } subs[] = {
        {HPROF_GC_CLASS_DUMP, "class dump"}, {HPROF_GC_INSTANCE_DUMP, "instance dump"},
        {HPROF_GC_OBJ_ARRAY_DUMP, "object array dump"},
        {HPROF_GC_PRIM_ARRAY_DUMP, "primitive array dump"},
        {HPROF_GC_PRIM_ARRAY_NODATA, "primitive array nodata"},
    };
    hf_heap_render_snap_info(&d->heap, s, out);
    if (d->heap.snaps->len == 1)
        for (size_t i = 0; i < G_N_ELEMENTS(subs); i++)
            g_string_append_printf(out, "records %s: %" G_GUINT64_FORMAT "\n", subs[i].name,
                                   d->n_sub[subs[i].tag]);
    return HF_DONE;
}

/* The HPROF agent's SITES block for every ALLOC SITES record of snapshot s;
 * item = record index. */
static uint64_t render_sites(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    hprof_dump *d = (hprof_dump *)base;
    uint32_t s = v->snap;
    hf_heap *h = &d->heap;
    size_t start = out->len;
    for (uint64_t i = first; i < d->sites->len; i++) {
        if (out->len - start >= budget && i > first)
            return i;
        if (g_array_index(d->sites_snap, uint32_t, i) != s)
            continue;
        uint64_t off = g_array_index(d->sites, uint64_t, i);
        hprof_sites st;
        if (!hprof_parse_alloc_sites(h->base.data + off, hprof_u4(h->base.data + off - 4),
                                     h->id_size, &st))
            continue;
        g_string_append_printf(out, "SITES BEGIN (ordered by %s)%s\n",
                               st.flags & 2 ? "allocated bytes" : "live bytes",
                               st.flags & 1 ? " incremental" : "");
        g_string_append(out, "          percent          live          alloc'ed  stack class\n"
                             " rank   self  accum     bytes objs     bytes  objs trace name\n");
        double accum = 0, total = st.live_bytes ? st.live_bytes : 1;
        for (uint32_t k = 0; k < st.n_sites; k++) {
            hprof_site site;
            hprof_site_at(&st, k, &site);
            double self = 100.0 * site.live_bytes / total;
            accum += self;
            const hprof_load_class *lc = hprof_load_class_by_serial(d, site.class_serial);
            uint32_t nlen;
            const char *nt = lc ? hprof_string_text(d, lc->name_id, &nlen) : NULL;
            g_string_append_printf(out, "%5u %5.2f%% %5.2f%% %9u %4u %9u %5u %5u ", k + 1, self,
                                   accum, site.live_bytes, site.live_instances, site.alloc_bytes,
                                   site.alloc_instances, site.trace);
            if (nt)
                hf_heap_display_name_append(out, nt, nlen);
            else if (site.array && hf_btype_name(site.array))
                g_string_append_printf(out, "%s[]", hf_btype_name(site.array));
            else
                g_string_append_printf(out, "class-serial-%u", site.class_serial);
            g_string_append_c(out, '\n');
        }
        g_string_append(out, "SITES END\n");
    }
    return HF_DONE;
}

static bool has_sites(hf_dump *base, uint32_t s, uint64_t index)
{
    hprof_dump *d = (hprof_dump *)base;
    for (guint i = 0; i < d->sites_snap->len; i++)
        if (g_array_index(d->sites_snap, uint32_t, i) == s)
            return true;
    return false;
}

static const hf_file snap_files[] = {
    {"info", render_snap_info, NULL},
    {"histogram", hf_heap_view_histogram, NULL},
    {"roots", hf_heap_view_roots, NULL},
    {"strings", hf_heap_view_strings, NULL},
    {"sites", render_sites, has_sites},
    {"heap.pprof", hf_heap_view_pprof, NULL},
    {"heap.pb.gz", hf_heap_view_pb, NULL},
    {"stacks.folded", hf_heap_view_folded, NULL},
    HF_HEAP_RETAINED_SNAP_FILES,
    {"duplicates", hf_heap_view_duplicates, NULL},
    {NULL},
};

static void hprof_describe(hf_dump *base, GString *out)
{
    hprof_dump *d = (hprof_dump *)base;
    g_string_append_printf(
        out,
        "A Java heap dump in the HPROF binary format (%s). Each heap dump in the file is a\n"
        "snapshot (snapshots/N). In a snapshot: histogram (instances, bytes, class, by bytes),\n"
        "classes/NAME/ (info, fields, statics, instances), objects/0xID/ (info, fields, value,\n"
        "refs/, class), roots (GC roots: kind, id, thread, frame, class), strings (every\n"
        "java.lang.String: id and text, \\n and \\\\ escaped), sites where the file has\n"
        "allocation sites, heap.pprof (google-pprof --text, no binary needed) and\n"
        "stacks.folded (flamegraph.pl, live bytes): the ALLOC SITES where the file has\n"
        "them, else the live objects by allocation trace, the class as the leaf frame.\n"
        "traces/N are stack traces in the HPROF agent's form; threads/ hold\n"
        "each thread's info and its stack with the local variables that are GC roots.\n"
        "Class names read java.lang.String, int[], java.lang.Object[]; '/' in a name is %%2F and\n"
        "'%%' is %%25; a name used by several classes gets @0xID on the later ones.\n"
        "Sizes follow one rule, stated in info: ",
        d->version);
    hf_heap_size_rule(&d->heap, out);
    g_string_append(out, ".\n");
}

const hf_dump_ops hprof_ops = {
    .format = "hprof",
    .destroy = hprof_destroy,
    .describe = hprof_describe,
    .render_info = render_info,
    .status = hf_heap_graph_status,
    .render_trace = hf_heap_view_trace,
    .n_snapshots = hf_heap_n_snapshots,
    .snapshot_number = hf_heap_snapshot_number,
    .n_traces = hf_heap_n_traces,
    .trace_number = hf_heap_trace_number,
    .n_threads = hf_heap_n_threads,
    .thread_name = hf_heap_thread_name,
    .n_classes = hf_heap_n_classes,
    .class_name = hf_heap_class_name,
    .class_find = hf_heap_class_find,
    .n_objects = hf_heap_n_objects,
    .object_name = hf_heap_object_name,
    .object_find = hf_heap_object_find,
    .snapshot = {.files = snap_files},
    .thread = {.files = hf_heap_thread_files},
    .class_ = {hf_heap_class_files, hf_heap_class_links, NULL},
    .object = {hf_heap_object_files, hf_heap_object_links, hf_heap_object_dirs},
};
