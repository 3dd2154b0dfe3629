/*
 * store.c - the HPROF dump's index file (core/keepstore.h): what the scan
 * found besides the heap graph (heap/persist.h saves that) goes in one
 * section, HF_KEEP_FORMAT: version, time, record counts, the strings table,
 * LOAD CLASS records and the ALLOC SITES records' offsets.  Every offset
 * into the dump read back is checked against the dump, as the scan does.
 *
 * Single-threaded, inside open; the .stats line is keepstore.h's.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/heap/persist.h"
#include "decoders/heap/retained.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

bool hprof_store_begin(hprof_store *store, const char *path, const uint8_t *data, size_t size,
                       const hf_open_opts *opts, GError **err)
{
    return hf_keepstore_begin(store, "hprof", path, data, size, opts, err);
}

void hprof_store_clear(hprof_store *store)
{
    hf_keepstore_clear(store);
}

/* ---- the HPROF section ---- */

static void save(const hprof_dump *d, hf_keepw *w)
{
    GByteArray *b = g_byte_array_new();
    hf_keepb_bytes(b, d->version, sizeof d->version);
    hf_keepb_u64(b, d->time_ms);
    hf_keepb_u64(b, d->header_len);
    hf_keepb_bytes(b, d->n_records, sizeof d->n_records);
    hf_keepb_bytes(b, d->n_sub, sizeof d->n_sub);
    hf_keepb_u64(b, d->n_segments);
    hf_keepb_u8(b, d->truncated);
    hf_keepb_u64(b, d->n_strings);
    hf_keepb_bytes(b, d->strings, d->n_strings * sizeof *d->strings);
    hf_keepb_u32(b, d->load_classes->len);
    for (guint i = 0; i < d->load_classes->len; i++) {
        const hprof_load_class *lc = &g_array_index(d->load_classes, hprof_load_class, i);
        hf_keepb_u32(b, lc->serial);
        hf_keepb_u32(b, lc->trace);
        hf_keepb_u64(b, lc->class_id);
        hf_keepb_u64(b, lc->name_id);
    }
    hf_keepb_u32(b, d->sites->len);
    for (guint i = 0; i < d->sites->len; i++) {
        hf_keepb_u64(b, g_array_index(d->sites, uint64_t, i));
        hf_keepb_u32(b, g_array_index(d->sites_snap, uint32_t, i));
    }
    hf_keepw_add_bytes(w, HF_KEEP_FORMAT, b);
}

/* A record body at off: its 9-byte header and its length lie in the dump. */
static bool body_ok(const hprof_dump *d, uint64_t off, uint32_t min)
{
    const hf_dump *b = &d->heap.base;
    if (off < d->header_len + 9 || off > b->size)
        return false;
    uint32_t len = hprof_u4(b->data + off - 4);
    return len >= min && len <= b->size - off;
}

static bool load(hprof_dump *d, const hf_keepr *r)
{
    hf_keepcur c = hf_keepcur_of(r, HF_KEEP_FORMAT);
    const void *v = hf_keepcur_bytes(&c, sizeof d->version);
    if (!v || memcmp(v, d->version, sizeof d->version) != 0)
        return false;
    if (hf_keepcur_u64(&c) != d->time_ms || hf_keepcur_u64(&c) != d->header_len)
        return false;
    const void *nr = hf_keepcur_bytes(&c, sizeof d->n_records);
    const void *ns = hf_keepcur_bytes(&c, sizeof d->n_sub);
    if (!nr || !ns)
        return false;
    memcpy(d->n_records, nr, sizeof d->n_records);
    memcpy(d->n_sub, ns, sizeof d->n_sub);
    d->n_segments = hf_keepcur_u64(&c);
    d->truncated = hf_keepcur_u8(&c) != 0;
    uint64_t n = hf_keepcur_u64(&c);
    if (!c.ok || n > (uint64_t)(c.end - c.p) / sizeof *d->strings)
        return false;
    d->strings = g_new(hprof_strref, n + 1);
    memcpy(d->strings, hf_keepcur_bytes(&c, n * sizeof *d->strings), n * sizeof *d->strings);
    d->n_strings = n;
    for (uint64_t i = 0; i < n; i++)
        if (!body_ok(d, d->strings[i].off, d->heap.id_size))
            return false;
    uint32_t nl = hf_keepcur_u32(&c);
    if (!c.ok || nl > (uint64_t)(c.end - c.p) / 24)
        return false;
    for (uint32_t i = 0; i < nl; i++) {
        hprof_load_class lc;
        lc.serial = hf_keepcur_u32(&c);
        lc.trace = hf_keepcur_u32(&c);
        lc.class_id = hf_keepcur_u64(&c);
        lc.name_id = hf_keepcur_u64(&c);
        g_array_append_val(d->load_classes, lc);
    }
    uint32_t nsites = hf_keepcur_u32(&c);
    if (!c.ok || nsites > (uint64_t)(c.end - c.p) / 12)
        return false;
    for (uint32_t i = 0; i < nsites; i++) {
        uint64_t off = hf_keepcur_u64(&c);
        uint32_t s = hf_keepcur_u32(&c);
        if (!body_ok(d, off, 0) || s >= d->heap.snaps->len)
            return false;
        g_array_append_val(d->sites, off);
        g_array_append_val(d->sites_snap, s);
    }
    return c.ok && c.p == c.end;
}

/* Both parts, or neither: the heap's arrays are forgotten on failure. */
static bool load_all(const hf_keepr *r, void *ud)
{
    hprof_dump *d = ud;
    d->load_classes = g_array_new(FALSE, FALSE, sizeof(hprof_load_class));
    d->sites = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    d->sites_snap = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (hf_heap_load(&d->heap, r) && load(d, r))
        return true;
    hf_heap_unmap(&d->heap);
    return false;
}

bool hprof_store_load(hprof_dump *d)
{
    return hf_keepstore_load(&d->store, load_all, d);
}

void hprof_store_built(hprof_dump *d, double seconds)
{
    hf_keepstore_built(&d->store, seconds);
}

static void fill(hf_keepw *w, void *ud)
{
    hprof_dump *d = ud;
    hf_heap_save(&d->heap, w);
    save(d, w);
}

void hprof_store_save(hf_dump *base)
{
    hprof_dump *d = (hprof_dump *)base;
    uint64_t id = hf_keepstore_save(&d->store, base->path, base->data, base->size, fill, d);
    if (id) /* results computed from this heap are this file's */
        hf_heap_graphs_source(d->heap.graphs, id);
}

void hprof_status(hf_dump *base, GString *out)
{
    hprof_dump *d = (hprof_dump *)base;
    hf_keepstore_status(&d->store, out);
    hf_heap_graph_status(base, out);
}
