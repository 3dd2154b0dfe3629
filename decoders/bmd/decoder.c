/*
 * bmd_ops.c - the BMD decoder: detection, open, the codec that reads
 * objects back from their records, and the views that are BMD's own
 * (MOUNT/info, the strings file).  Classes, objects, roots, traces and
 * threads are rendered by heap_render.c from the neutral graph.
 *
 * Locators are file offsets of records (the tag).  Values are varints, so
 * the codec is not fixed_be: the heap layer walks fields one by one.
 * Object array elements are varints too; reading element i means skipping
 * i varints, so each thread keeps a cursor into the last array it read and
 * sequential reads (refs/, fields, for_each_ref) cost O(1) each.
 *
 * The dump is immutable after open; everything here is thread-safe.
 */
#include "decoders/bmd/bmd.h"
#include "decoders/heap/retained.h"

#include <string.h>

/* ---- the codec ---- */

static const uint8_t *file_end(const hf_heap *h)
{
    return h->base.data + h->base.size;
}

/* Tag and first id of the record at loc. */
static bool record_head(const hf_heap *h, uint64_t loc, uint32_t *tag, uint32_t *id,
                        const uint8_t **rest)
{
    const uint8_t *p = h->base.data + loc, *end = file_end(h);
    if (loc >= h->base.size || bmd_varint32(&p, end, tag) != BMD_OK ||
        bmd_varint32(&p, end, id) != BMD_OK)
        return false;
    *rest = p;
    return true;
}

static uint64_t codec_object_id(const hf_heap *h, uint64_t loc)
{
    uint32_t tag, id = 0;
    const uint8_t *p;
    record_head(h, loc, &tag, &id, &p);
    return id;
}

static bool codec_shape(const hf_heap *h, uint64_t loc, hf_hshape *out)
{
    uint32_t tag, id, a = 0, b = 0;
    const uint8_t *p, *end = file_end(h);
    if (!record_head(h, loc, &tag, &id, &p))
        return false;
    switch (tag) {
    case BMD_CLASS:
        out->kind = HF_K_CLASS;
        return true;
    case BMD_INSTANCE:
        out->kind = HF_K_INSTANCE;
        out->class_id = bmd_varint32(&p, end, &a) == BMD_OK ? a : 0;
        return true;
    case BMD_OBJARRAY:
        bmd_varint32(&p, end, &a);
        bmd_varint32(&p, end, &b);
        out->kind = HF_K_OBJARRAY;
        out->class_id = a;
        out->length = b;
        return true;
    case BMD_PRIMARRAY:
        bmd_varint32(&p, end, &a);
        bmd_varint32(&p, end, &b);
        out->kind = HF_K_PRIMARRAY;
        out->elem = (uint8_t)bmd_hf_type(a);
        out->length = b;
        return true;
    }
    return false;
}

static bool codec_value(const hf_heap *h, unsigned t, const uint8_t **p, const uint8_t *end,
                        uint64_t *v)
{
    return *p && bmd_value(t, p, end, v) == BMD_OK;
}

static bool codec_object(const hf_heap *h, uint64_t loc, hf_hobj *ob)
{
    uint32_t tag, id, a = 0, b = 0;
    const uint8_t *p, *end = file_end(h);
    if (!record_head(h, loc, &tag, &id, &p))
        return false;
    ob->id = id;
    ob->loc = loc;
    switch (tag) {
    case BMD_CLASS:
        ob->kind = HF_K_CLASS;
        return true;
    case BMD_INSTANCE: {
        if (bmd_varint32(&p, end, &a) != BMD_OK)
            return false;
        ob->kind = HF_K_INSTANCE;
        ob->data = p;
        /* the values end after those of the class chain's fields */
        const hf_hsnap *sn = hf_heap_snap(h, 0);
        int64_t ci = sn ? hf_heap_class_by_id(sn, a) : -1;
        const hf_hclass *c = ci >= 0 ? hf_heap_class(sn, (uint64_t)ci) : NULL;
        for (uint32_t i = 0; c && i < c->n_fields; i++) {
            uint64_t v;
            if (bmd_value(c->fields[i].type, &p, end, &v) != BMD_OK)
                break;
        }
        ob->end = p;
        return true;
    }
    case BMD_OBJARRAY:
        if (bmd_varint32(&p, end, &a) != BMD_OK || bmd_varint32(&p, end, &b) != BMD_OK)
            return false;
        ob->kind = HF_K_OBJARRAY;
        ob->elem = HF_T_OBJECT;
        ob->length = b;
        ob->data = p;
        ob->end = end; /* elements are read one by one (codec_element) */
        return true;
    case BMD_PRIMARRAY:
        if (bmd_varint32(&p, end, &a) != BMD_OK || bmd_varint32(&p, end, &b) != BMD_OK)
            return false;
        ob->kind = HF_K_PRIMARRAY;
        ob->elem = (uint8_t)bmd_hf_type(a);
        ob->length = b;
        ob->nodata = true; /* BMD keeps type and length only */
        return true;
    }
    return false;
}

/* Per-thread position in the last object array read.  Keyed by the dump's
 * serial, not its address: a dump closed and another opened (tests,
 * fuzzers) may reuse both the struct's and the map's addresses. */
static __thread struct {
    uint64_t serial;     /* bmd_dump.serial; 0 = none */
    const uint8_t *data; /* the array's first element */
    uint64_t i;          /* index of the element at p */
    const uint8_t *p;
} cursor;

static bool codec_element(const hf_heap *h, const hf_hobj *ob, uint64_t i, uint64_t *v)
{
    if (ob->kind != HF_K_OBJARRAY || !ob->data || i >= ob->length)
        return false;
    const uint8_t *p = ob->data, *end = file_end(h);
    uint64_t k = 0, serial = ((const bmd_dump *)h)->serial;
    if (cursor.serial == serial && cursor.data == ob->data && cursor.i <= i) {
        p = cursor.p;
        k = cursor.i;
    }
    for (uint64_t skip; k < i; k++)
        if (bmd_varint(&p, end, &skip) != BMD_OK)
            return false;
    uint32_t w;
    if (bmd_varint32(&p, end, &w) != BMD_OK)
        return false;
    *v = w;
    cursor.serial = serial;
    cursor.data = ob->data;
    cursor.i = i + 1;
    cursor.p = p;
    return true;
}

const hf_heap_codec bmd_codec = {
    .fixed_be = false,
    .object_id = codec_object_id,
    .shape = codec_shape,
    .object = codec_object,
    .value = codec_value,
    .element = codec_element,
};

/* ---- detection and open ---- */

static bool printable(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            return false;
    return true;
}

static bool bmd_detect(const uint8_t *head, size_t len)
{
    bmd_header hd;
    if (bmd_parse_header(head, len, &hd) != BMD_OK || hd.version != 1)
        return false;
    /* Real metadata is the HPROF header string: that says enough (a file
     * whose first record is damaged still mounts, with the damage in
     * errors).  Other metadata is allowed, but then the records must read,
     * and when it is not even text the first one whole. */
    static const char hprof[] = "JAVA PROFILE ";
    if (hd.meta_len >= sizeof hprof - 1 && memcmp(hd.meta, hprof, sizeof hprof - 1) == 0 &&
        printable(hd.meta, hd.meta_len))
        return true;
    return bmd_records_plausible(head + hd.len, head + len, printable(hd.meta, hd.meta_len));
}

static void bmd_destroy(hf_dump *base)
{
    bmd_dump *d = (bmd_dump *)base;
    g_free(d->strings);
    g_free(d->metadata);
    g_free(d->names_file);
    hf_heap_clear(&d->heap);
    g_free(d);
}

extern const hf_dump_ops bmd_ops;

/* heap.pprof and stacks.folded: live objects by class.  BMD keeps no
 * allocation traces, and the ALLOC SITES a legacy record may carry name
 * their classes by LOAD CLASS serials the cruncher did not keep. */
static void bmd_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud)
{
    hf_heap_pprof_add_objects(o, s);
}

static hf_dump *bmd_open_opts(const char *path, GMappedFile *map, const hf_open_opts *opts,
                              GError **err)
{
    const uint8_t *data = (const uint8_t *)g_mapped_file_get_contents(map);
    size_t size = g_mapped_file_get_length(map);
    bmd_header hd;
    if (bmd_parse_header(data, size, &hd) != BMD_OK) {
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: BMD header cut off (%zu bytes)", path,
                    size);
        return NULL;
    }
    bmd_names *names = NULL;
    if (opts && opts->names_file && !(names = bmd_names_load(opts->names_file, err)))
        return NULL;
    static gint next_serial; /* atomic: dumps may be opened on several threads */
    bmd_dump *d = g_new0(bmd_dump, 1);
    d->serial = (uint64_t)(guint)g_atomic_int_add(&next_serial, 1) + 1;
    /* BMD does not say; the cruncher reads 4-byte HPROF ids only */
    hf_heap_init(&d->heap, &bmd_ops, &bmd_codec, path, map, 4);
    d->version = hd.version;
    d->metadata = g_strndup((const char *)hd.meta, hd.meta_len);
    for (char *c = d->metadata; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            *c = '?';
    d->header_len = hd.len;
    if (names) {
        d->names_file = g_strdup(opts->names_file);
        d->n_candidates = bmd_names_count(names);
    }
    bmd_index(d, names);
    bmd_names_free(names);
    d->heap.pprof = hf_heap_pprof_new(&d->heap, d->heap.snaps->len, "java", bmd_build_pprof, d,
                                 NULL, NULL);
    return &d->heap.base;
}

static hf_dump *bmd_open(const char *path, GMappedFile *map, GError **err)
{
    return bmd_open_opts(path, map, NULL, err);
}

const hf_decoder hf_decoder_bmd = {
    .format = "bmd",
    .detect = bmd_detect,
    .open = bmd_open,
    .open_opts = bmd_open_opts,
};

/* ---- views ---- */

static uint64_t render_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                            size_t budget)
{
    bmd_dump *d = (bmd_dump *)base;
    hf_heap *h = &d->heap;
    uint64_t classes, objects, roots;
    hf_heap_totals(h, &classes, &objects, &roots);
    g_string_append(out, "format: bmd\n");
    g_string_append_printf(out, "version: %u\n", d->version);
    g_string_append_printf(out, "metadata: %s\n", d->metadata);
    g_string_append_printf(out, "file: %s\n", h->base.path);
    g_string_append_printf(out, "size: %zu\n", h->base.size);
    g_string_append_printf(out, "identifier size: %u (legacy HPROF records)\n", d->legacy_idsz);
    g_string_append_printf(out, "snapshots: %u\n", h->snaps->len);
    g_string_append_printf(out, "classes: %" G_GUINT64_FORMAT "\n", classes);
    g_string_append_printf(out, "objects: %" G_GUINT64_FORMAT "\n", objects);
    g_string_append_printf(out, "traces: %u\n", h->traces->len);
    g_string_append_printf(out, "threads: %u\n", h->threads->len);
    g_string_append_printf(out, "roots: %" G_GUINT64_FORMAT "\n", roots);
    g_string_append_printf(out, "strings: %u (%" G_GUINT64_FORMAT " kept as text, %"
                           G_GUINT64_FORMAT " only as a hash)\n",
                           d->n_strings, d->n_strings - d->n_hashed, d->n_hashed);
    if (d->names_file)
        g_string_append_printf(out, "names resolved: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                               " hashed (%" G_GUINT64_FORMAT " candidate names from %s; %"
                               G_GUINT64_FORMAT " ambiguous, first candidate taken)\n",
                               d->n_resolved, d->n_hashed, d->n_candidates, d->names_file,
                               d->n_ambiguous);
    else
        g_string_append_printf(out, "names resolved: 0 of %" G_GUINT64_FORMAT
                               " hashed (no -o names=FILE given)\n", d->n_hashed);
    g_string_append_printf(out, "index bytes: %" G_GUINT64_FORMAT "\n", hf_heap_index_bytes(h));
    g_string_append_printf(out, "passes: %u\n", d->passes);
    g_string_append_printf(out, "instances before their class: %" G_GUINT64_FORMAT "\n",
                           d->n_forward);
    if (d->n_guessed)
        g_string_append_printf(out, "instances of classes never defined: %" G_GUINT64_FORMAT
                               "\n", d->n_guessed);
    g_string_append_printf(out, "problems: %" G_GUINT64_FORMAT "\n", (guint64)h->base.n_problems);
    g_string_append(out, "size rule: ");
    hf_heap_size_rule(h, out);
    g_string_append(out, "; primitive fields the dump left out counted by their size\n");
    for (int t = 1; t < BMD_NTAGS; t++)
        g_string_append_printf(out, "records %s: %" G_GUINT64_FORMAT "\n", bmd_tag_names[t],
                               d->n_records[t]);
    if (d->n_headers)
        g_string_append_printf(out, "repeated headers: %" G_GUINT64_FORMAT " (the cruncher "
                               "wrote one per pass)\n", d->n_headers);
    if (d->n_records[0])
        g_string_append_printf(out, "records unreadable: %" G_GUINT64_FORMAT "\n",
                               d->n_records[0]);
    static const struct { uint8_t tag; const char *name; } legacy[] = {
        {0x01, "string"},       {0x02, "load class"},   {0x03, "unload class"},
        {0x04, "stack frame"},  {0x05, "stack trace"},  {0x06, "alloc sites"},
        {0x07, "heap summary"}, {0x0A, "start thread"}, {0x0B, "end thread"},
        {0x0C, "heap dump"},    {0x0D, "cpu samples"},  {0x0E, "control settings"},
        {0x1C, "heap dump segment"}, {0x2C, "heap dump end"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(legacy); i++)
        if (d->n_legacy[legacy[i].tag])
            g_string_append_printf(out, "legacy records %s: %" G_GUINT64_FORMAT "\n",
                                   legacy[i].name, d->n_legacy[legacy[i].tag]);
    if (d->truncated)
        g_string_append(out, "warning: the file ends inside a record (truncated dump)\n");
    return HF_DONE;
}

/* snapshots/1/strings: every string record, by id: "ID text TEXT",
 * "ID hashed hash.LEN.HASH" or "ID resolved NAME".  Item = string index. */
static uint64_t render_strings(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                               size_t budget)
{
    bmd_dump *d = (bmd_dump *)base;
    size_t start = out->len;
    for (uint64_t i = first; i < d->n_strings; i++) {
        if (out->len > start && out->len - start >= budget)
            return i;
        const bmd_str *s = &d->strings[i];
        g_string_append_printf(out, "%u ", s->id);
        if (!s->hashed) {
            g_string_append(out, "text ");
            hf_heap_escape_line(out, (const char *)d->heap.base.data + s->off, s->len);
        } else if (s->resolved) {
            g_string_append(out, "resolved ");
            hf_heap_escape_line(out, s->resolved, strlen(s->resolved));
        } else {
            g_string_append(out, "hashed ");
            bmd_placeholder(out, s->len, s->hash);
        }
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

static uint64_t render_snap_info(hf_dump *base, const hf_view *v, uint64_t first, GString *out,
                                 size_t budget)
{
    hf_heap_render_snap_info((hf_heap *)base, v->snap, out);
    return HF_DONE;
}

static const hf_file snap_files[] = {
    {"info", render_snap_info, NULL},
    {"histogram", hf_heap_view_histogram, NULL},
    {"roots", hf_heap_view_roots, NULL},
    {"strings", render_strings, NULL},
    {"heap.pprof", hf_heap_view_pprof, NULL},
    {"heap.pb.gz", hf_heap_view_pb, NULL},
    {"stacks.folded", hf_heap_view_folded, NULL},
    HF_HEAP_RETAINED_SNAP_FILES,
    {NULL},
};

/* No value file: String contents live in primitive arrays, whose elements
 * BMD drops. */
static const hf_file object_files[] = {
    {"info", hf_heap_view_object_info, NULL},
    {"fields", hf_heap_view_object_fields, hf_heap_has_object_fields},
    HF_HEAP_RETAINED_OBJECT_FILES,
    {NULL},
};

static void bmd_describe(hf_dump *base, GString *out)
{
    bmd_dump *d = (bmd_dump *)base;
    g_string_append(
        out,
        "A BMD binary memory dump, the compact form the hprof-tools cruncher makes of an\n"
        "HPROF heap dump");
    if (*d->metadata)
        g_string_append_printf(out, " (%s)", d->metadata);
    g_string_append(
        out,
        ". It is one snapshot (snapshots/1): histogram (instances, bytes,\n"
        "class, by bytes), classes/NAME/ (info, fields, statics, instances), objects/0xID/\n"
        "(info, fields, refs/, class), roots (GC roots: BMD keeps their ids, not their kind),\n"
        "strings (every string record: id, then \"text\" and the text, \"hashed\" and a\n"
        "placeholder, or \"resolved\" and the name a hash matched), heap.pprof (google-pprof\n"
        "--text, no binary needed) and stacks.folded (flamegraph.pl): live objects and bytes by\n"
        "class, as BMD keeps no allocation traces. BMD drops the elements of\n"
        "primitive arrays (objects show type and length only) and most primitive instance\n"
        "fields (classes/NAME/info says how many bytes; sizes count them). Ids are the BMD\n"
        "file's own, not the original dump's.\n"
        "Most class and field names are kept only as a length and Java's String.hashCode():\n"
        "they show as hash.LEN.HHHHHHHH (8 hex digits). Mount with -o names=FILE (one candidate\n"
        "name per line: class names from a jar listing, a heapfs histogram, field names) to\n"
        "resolve every hash that matches; info says how many did.\n"
        "traces/N and threads/ come from the legacy HPROF records the file carries, with the\n"
        "original dump's ids: frame names whose strings the file lacks show as 0xID, thread\n"
        "names are left out.\n"
        "Class names read java.lang.String, int[]; '/' in a name is %2F and '%' is %25; a name\n"
        "used by several classes gets @0xID on the later ones. Sizes follow one rule, stated in\n"
        "info: ");
    hf_heap_size_rule(&d->heap, out);
    g_string_append(out, ".\n");
}

const hf_dump_ops bmd_ops = {
    .format = "bmd",
    .destroy = bmd_destroy,
    .describe = bmd_describe,
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
    .object = {object_files, hf_heap_object_links, hf_heap_object_dirs},
};
