/*
 * store.c - the HPROF dump's index file (core/keepfile.h): what the scan
 * found besides the heap graph (heap/persist.h saves that) goes in one
 * section, HF_KEEP_FORMAT: version, time, record counts, the strings table,
 * LOAD CLASS records and the ALLOC SITES records' offsets.  Every offset
 * into the dump read back is checked against the dump, as the scan does.
 *
 * Single-threaded, inside open; the .stats line is read-only afterwards.
 */
#include "decoders/hprof/hprof.h"
#include "decoders/heap/persist.h"
#include "decoders/heap/retained.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

static double now(void)
{
    return g_get_monotonic_time() / 1e6;
}

bool hprof_store_begin(hprof_store *store, const char *path, const uint8_t *data, size_t size,
                       const hf_open_opts *opts, GError **err)
{
    store->paths = hf_keep_candidates(path, opts ? opts->index : "none", "");
    if (store->paths->len)
        store->keyed = hf_keep_key(&store->key, path, data, size, "hprof", 0);
    /* -o index=FILE naming what is no index file (the dump itself, as a
     * slip of the keyboard makes it): said now, not found replaced later */
    char *no = store->keyed && opts && opts->index
                   ? hf_keep_not_replaceable(opts->index, &store->key)
                   : NULL;
    if (no)
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN,
                    "%s: -o index=%s: %s (heapfs replaces only its own index files)", path,
                    opts->index, no);
    bool ok = no == NULL;
    g_free(no);
    return ok;
}

void hprof_store_clear(hprof_store *store)
{
    if (store->paths)
        g_ptr_array_free(store->paths, TRUE);
    hf_keepr_free(store->r);
    g_free(store->why);
    g_free(store->status);
    memset(store, 0, sizeof *store);
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

bool hprof_store_load(hprof_dump *d)
{
    hprof_store *store = &d->store;
    if (!store->keyed)
        return false;
    double t0 = now();
    store->r = hf_keepr_open(&store->key, store->paths, &store->why);
    if (!store->r)
        return false;
    d->load_classes = g_array_new(FALSE, FALSE, sizeof(hprof_load_class));
    d->sites = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    d->sites_snap = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (!hf_heap_load(&d->heap, store->r) || !load(d, store->r)) {
        g_free(store->why);
        store->why = g_strdup_printf("%s: damaged (inconsistent contents)", hf_keepr_path(store->r));
        hf_heap_unmap(&d->heap);
        g_clear_pointer(&store->r, hf_keepr_free);
        return false;
    }
    size_t bytes;
    hf_keepr_data(store->r, &bytes);
    store->status = g_strdup_printf("index: loaded from %s in %.3f s (%zu bytes)\n",
                                    hf_keepr_path(store->r), now() - t0, bytes);
    return true;
}

static void set_status(hprof_store *store, char *line)
{
    g_mutex_lock(&store->lock);
    g_free(store->status);
    store->status = line;
    g_mutex_unlock(&store->lock);
}

/* "index: built in 2.07 s (why the file found was not used)" */
static GString *built_line(const hprof_store *store)
{
    GString *s = g_string_new(NULL);
    g_string_printf(s, "index: built in %.2f s", store->seconds);
    if (store->why)
        g_string_append_printf(s, " (%s)", store->why);
    return s;
}

void hprof_store_built(hprof_dump *d, double seconds)
{
    hprof_store *store = &d->store;
    store->seconds = seconds;
    GString *s = built_line(store);
    g_string_append(s, store->paths->len ? ", index file not written yet\n"
                                         : ", no index file (-o index=none)\n");
    set_status(store, g_string_free(s, FALSE));
}

void hprof_store_save(hf_dump *base)
{
    hprof_dump *d = (hprof_dump *)base;
    hprof_store *store = &d->store;
    if (store->r || !store->paths->len)
        return; /* loaded from one, or none wanted */
    GString *s = built_line(store);
    const hf_dump *b = &d->heap.base;
    hf_keepkey again;
    struct stat st;
    if (!store->keyed || !hf_keep_key(&again, b->path, b->data, b->size, "hprof", 0) ||
        memcmp(&again, &store->key, sizeof again) != 0 || stat(b->path, &st) != 0) {
        g_string_append(s, ", index file not written: the dump changed after it was opened");
    } else {
        double t0 = now();
        hf_keepw *w = hf_keepw_new();
        hf_heap_save(&d->heap, w);
        save(d, w);
        char *why = NULL;
        /* no more readable than the dump: the index holds its names */
        char *to = hf_keepw_write(w, &store->key, store->paths, st.st_mode & 0644, &why);
        if (to) /* results computed from this heap are this file's */
            hf_heap_graphs_source(d->heap.graphs, hf_keepw_id(w));
        hf_keepw_free(w);
        struct stat kept;
        if (to && stat(to, &kept) == 0)
            g_string_append_printf(s, ", written to %s in %.2f s (%jd bytes)", to, now() - t0,
                                   (intmax_t)kept.st_size);
        else if (to)
            g_string_append_printf(s, ", written to %s in %.2f s", to, now() - t0);
        else
            g_string_append_printf(s, ", index file not written (%s)", why ? why : "no place");
        g_free(to);
        g_free(why);
    }
    g_string_append_c(s, '\n');
    set_status(store, g_string_free(s, FALSE));
}

void hprof_status(hf_dump *base, GString *out)
{
    hprof_dump *d = (hprof_dump *)base;
    g_mutex_lock(&d->store.lock);
    if (d->store.status)
        g_string_append(out, d->store.status);
    g_mutex_unlock(&d->store.lock);
    hf_heap_graph_status(base, out);
}
