/*
 * decoder.c - the BMD decoder: detection, open (with -o names=), destroy,
 * heap.pprof's builder, the tables of views and the ops table.  The passes
 * over the file are scan.c's (legacy HPROF records legacy.c's, hashed names
 * names.c's), the readers and the codec read.c's, BMD's own views
 * render.c's; classes, objects, roots, traces and threads are the heap
 * layer's (decoders/heap/).
 *
 * The dump is immutable after open; everything here is thread-safe.
 */
#include "decoders/bmd/bmd.h"
#include "decoders/heap/build.h"
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"
#include "decoders/heap/tables.h"

#include <string.h>

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

static const hf_dump_ops bmd_ops;

/* heap.pprof and stacks.folded: live objects by class.  BMD keeps no
 * allocation traces, and the ALLOC SITES a legacy record may carry name
 * their classes by LOAD CLASS serials the cruncher did not keep. */
static void bmd_build_pprof(hf_heap_pprof_out *o, uint32_t s, void *ud)
{
    hf_heap_pprof_add_objects(o, s);
}

static hf_dump *bmd_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
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

const hf_decoder hf_decoder_bmd = {
    .format = "bmd",
    .detect = bmd_detect,
    .open = bmd_open,
};

static const hf_file snap_files[] = {
    {"info", bmd_view_snap_info, NULL},
    {"histogram", hf_heap_view_histogram, NULL},
    {"roots", hf_heap_view_roots, NULL},
    {"strings", bmd_view_strings, NULL},
    {"heap.pprof", hf_heap_view_pprof, NULL},
    {"heap.pb.gz", hf_heap_view_pb, NULL},
    {"stacks.folded", hf_heap_view_folded, NULL},
    {"flame.svg", hf_heap_view_flame, NULL},
    HF_HEAP_RETAINED_SNAP_FILES,
    HF_HEAP_MAT_SNAP_FILES(NULL),
    HF_HEAP_TABLE_SNAP_FILES(NULL),
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

static const hf_dump_ops bmd_ops = {
    .format = "bmd",
    .destroy = bmd_destroy,
    .describe = bmd_describe,
    .render_info = bmd_render_info,
    .status = hf_heap_graph_status,
    HF_HEAP_MODEL_OPS,
    HF_HEAP_GRAPH_OPS,
    .snapshot = {.files = snap_files},
    .object = {object_files, hf_heap_object_links, hf_heap_object_dirs},
};
