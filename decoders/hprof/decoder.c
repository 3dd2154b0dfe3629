/*
 * decoder.c - the HPROF binary decoder: detection, open, destroy, the
 * tables of views and the ops table.  The pass over the file is scan.c's,
 * the parsers and the codec read.c's, HPROF's own views render.c's and
 * heap.pprof profile.c's; classes, objects, roots, strings, traces and
 * threads are the heap layer's (decoders/heap/).
 *
 * The dump is immutable after hprof_open(); every function here is
 * thread-safe.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/heap/build.h"
#include "decoders/heap/inspect.h"
#include "decoders/heap/persist.h"
#include "decoders/heap/render.h"
#include "decoders/heap/retained.h"
#include "decoders/heap/tables.h"
#include "decoders/core/workmem.h"

#include <string.h>
#include <sys/mman.h>

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
    if (d->store.r)
        hf_heap_unmap(&d->heap); /* its arrays are the index file's */
    hf_heap_clear(&d->heap);
    hprof_store_clear(&d->store);
    g_free(d);
}

static const hf_dump_ops hprof_ops;

static hprof_dump *hprof_new(const char *path, GMappedFile *map, size_t hl, unsigned idsz)
{
    const uint8_t *data = (const uint8_t *)g_mapped_file_get_contents(map);
    hprof_dump *d = g_new0(hprof_dump, 1);
    hf_heap_init(&d->heap, &hprof_ops, &hprof_codec, path, map, idsz);
    g_strlcpy(d->version, (const char *)data, sizeof d->version);
    d->header_len = hl;
    d->time_ms = (uint64_t)hprof_u4(data + hl - 8) << 32 | hprof_u4(data + hl - 4);
    return d;
}

static hf_dump *hprof_open(const char *path, GMappedFile *map, const hf_open_opts *opts,
                           GError **err)
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
    /* An index file made from this very dump: mapped, nothing read. */
    hprof_dump *d = hprof_new(path, map, hl, idsz);
    if (!hprof_store_begin(&d->store, path, data, size, opts, err)) {
        hprof_destroy(&d->heap.base);
        return NULL;
    }
    if (hprof_store_load(d))
        goto done;
    hprof_store store = d->store; /* what the attempt found goes on to the new one */
    d->store = (hprof_store){0};
    hprof_destroy(&d->heap.base);
    d = hprof_new(path, map, hl, idsz);
    d->store = store;
    double t0 = g_get_monotonic_time() / 1e6;
    /* One sequential pass: map the whole file in one go where the kernel
     * can (Linux 5.14+), which beats a page fault per 64 KiB; else ask for
     * read-ahead.  Not when the dump is larger than half the memory
     * available: populating would read all of it before the scan, whose
     * start would be evicted by then, and the scan read it again (57 s of
     * a 105 s index build of a 31 GB dump on a 24 GB machine).  Purely
     * advice: failures change nothing. */
    void *mstart = (void *)((uintptr_t)data & ~(uintptr_t)4095);
    size_t mlen = size + ((uintptr_t)data & 4095);
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
    if (size > hf_mem_available("", NULL) / 2 || madvise(mstart, mlen, MADV_POPULATE_READ) != 0)
        madvise(mstart, mlen, MADV_SEQUENTIAL);
    hprof_index(d);
    madvise(mstart, mlen, MADV_RANDOM); /* views read a record here and there */
    hprof_store_built(d, g_get_monotonic_time() / 1e6 - t0);
done:
    if (d->store.keyed) { /* dominator results go to files beside the index, keyed to it */
        hf_keepkey results = d->store.key;
        results.source = d->store.r ? hf_keepr_id(d->store.r) : 0; /* built: hprof_store_save sets it */
        hf_heap_graphs_keep(d->heap.graphs, path, opts->index, &results);
    }
    d->heap.pprof = hf_heap_pprof_new(&d->heap, d->heap.snaps->len, "java", hprof_build_pprof, d,
                                      NULL, NULL);
    return &d->heap.base;
}

const hf_decoder hf_decoder_hprof = {
    .format = "hprof",
    .detect = hprof_detect,
    .open = hprof_open,
};

static const hf_file snap_files[] = {
    {"info", hprof_view_snap_info, NULL},
    {"histogram", hf_heap_view_histogram, NULL},
    {"roots", hf_heap_view_roots, NULL},
    {"strings", hf_heap_view_strings, NULL},
    {"sites", hprof_view_sites, hprof_has_sites},
    {"sites.agent", hprof_view_sites_agent, hprof_has_sites},
    {"heap.pprof", hf_heap_view_pprof, NULL},
    {"heap.pb.gz", hf_heap_view_pb, NULL},
    {"stacks.folded", hf_heap_view_folded, NULL},
    {"flame.svg", hf_heap_view_flame, NULL},
    HF_HEAP_RETAINED_SNAP_FILES,
    HF_HEAP_MAT_SNAP_FILES(NULL),
    {"duplicates", hf_heap_view_duplicates, NULL},
    HF_HEAP_INSPECT_SNAP_FILES,
    HF_HEAP_TABLE_SNAP_FILES(NULL),
    {"tables/sites.tsv", hprof_sites_tsv_view, hprof_has_sites, hprof_sites_tsv_measure},
    {NULL},
};

static const hf_dump_ops hprof_ops = {
    .format = "hprof",
    .destroy = hprof_destroy,
    .describe = hprof_describe,
    .render_info = hprof_render_info,
    .status = hprof_status, /* the graphs' lines and the index file's */
    .after_mount = hprof_store_save,
    HF_HEAP_MODEL_OPS,
    HF_HEAP_GRAPH_OPS,
    .text = hf_heap_text_of,
    .snapshot = {.files = snap_files},
    .object = {hf_heap_object_files, hf_heap_object_links, hf_heap_object_dirs},
};
