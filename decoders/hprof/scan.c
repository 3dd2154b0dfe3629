/*
 * scan.c - the one streaming pass over an HPROF file, and lookups in
 * what it found (strings, LOAD CLASS records, ALLOC SITES records).
 *
 * Walks every top-level record once, straight from the map: strings,
 * classes and threads are remembered by offset, and the bodies of HEAP
 * DUMP and HEAP DUMP SEGMENT records are queued for heapscan.c, which
 * scans their sub-records on several threads (objects, classified as they
 * are met, roots, class dumps).  Nothing is allocated per record.
 * Afterwards the records remembered by offset are decoded (class dumps,
 * frames, traces, threads) and hf_heap_finish() sorts the objects.
 *
 * A record running past the end of the file (a truncated dump) or a tag
 * nobody knows is a problem with its offset; everything before it stays.
 * Problems keep file order whatever the threads.  Inside open(); on the
 * terminal, a progress line (progress.h).
 */
#include "decoders/hprof/hprof.h"
#include "decoders/core/search.h"
#include "decoders/heap/build.h"

#include <string.h>

typedef struct {
    hprof_dump *d;
    unsigned idsz;
    GArray *frames;  /* uint64 body offsets of STACK FRAME */
    GArray *traces;  /* uint64 body offsets of STACK TRACE */
    GArray *threads; /* uint64 body offsets of START THREAD */
    GArray *strings; /* hprof_strref */
    GPtrArray *class_dumps; /* per snapshot: GArray of uint64 sub-record offsets */
    hf_hsnap *cur;          /* open snapshot (segments until HEAP DUMP END) */
    bool new_snap;          /* the next body queued opens cur */
    hprof_heapscan *hs;     /* the bodies, and problems in file order */
} scan;

/* A new snapshot; the bodies queued next open it (new_snap). */
static hf_hsnap *open_snap(scan *sc)
{
    sc->cur = hf_heap_add_snap(&sc->d->heap);
    g_ptr_array_add(sc->class_dumps, g_array_new(FALSE, FALSE, sizeof(uint64_t)));
    sc->new_snap = true;
    return sc->cur;
}

static void queue_body(scan *sc, size_t body, size_t end, bool cut)
{
    hprof_heapscan_add(sc->hs, sc->d->heap.snaps->len - 1, sc->new_snap, body, end, cut);
    sc->new_snap = false;
}

static int cmp_strref(gconstpointer a, gconstpointer b)
{
    const hprof_strref *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Class dumps of snapshot sn -> hf_hclass entries. */
static void add_classes(scan *sc, hf_hsnap *sn, GArray *cds, GHashTable *lc_by_id)
{
    hprof_dump *d = sc->d;
    hf_heap *h = &d->heap;
    const unsigned idsz = sc->idsz;
    const uint8_t *end = h->base.data + h->base.size;
    GArray *decl = g_array_new(FALSE, TRUE, sizeof(hf_hfield));
    GArray *stat = g_array_new(FALSE, TRUE, sizeof(hf_hstatic));
    for (guint i = 0; i < cds->len; i++) {
        uint64_t off = g_array_index(cds, uint64_t, i);
        hprof_class_dump cd;
        if (!hprof_parse_class_dump(h->base.data + off, end, idsz, &cd))
            continue; /* cannot happen: the scan measured it */
        hf_hclass c = {0};
        c.id = cd.id;
        c.super_id = cd.super;
        c.loader_id = cd.loader;
        c.trace = cd.trace;
        c.inst_size = cd.inst_size;
        gpointer lc = g_hash_table_lookup(lc_by_id, GSIZE_TO_POINTER(cd.id));
        uint32_t nlen = 0;
        const char *ntext =
            lc ? hprof_string_text(d, ((const hprof_load_class *)lc)->name_id, &nlen) : NULL;
        if (ntext) {
            c.name = hf_heap_display_name(h, ntext, nlen);
        } else {
            char name[48];
            g_snprintf(name, sizeof name, "class.0x%" G_GINT64_MODIFIER "x", (guint64)cd.id);
            c.name = hf_heap_intern(h, name, strlen(name));
        }
        g_array_set_size(decl, 0);
        g_array_set_size(stat, 0);
        const uint8_t *q = cd.statics;
        for (uint16_t k = 0; k < cd.n_statics; k++) {
            hf_hstatic s = {0};
            s.name = hprof_intern_string(d, hprof_id(q, idsz));
            s.type = q[idsz];
            s.value = hprof_value(q + idsz + 1, s.type, idsz);
            q += idsz + 1 + hf_btype_size(s.type, idsz);
            g_array_append_val(stat, s);
        }
        q = cd.fields;
        for (uint16_t k = 0; k < cd.n_fields; k++) {
            hf_hfield f = {0};
            f.name = hprof_intern_string(d, hprof_id(q, idsz));
            f.type = q[idsz];
            q += idsz + 1;
            g_array_append_val(decl, f);
        }
        c.decl = (hf_hfield *)(void *)decl->data;
        c.n_decl = decl->len;
        c.statics = (hf_hstatic *)(void *)stat->data;
        c.n_statics = stat->len;
        if (hf_heap_class_by_id(sn, cd.id) >= 0)
            hf_problem(&h->base, off, "class 0x%" G_GINT64_MODIFIER "x dumped twice", (guint64)cd.id);
        hf_heap_add_class(h, sn, &c);
    }
    g_array_free(decl, TRUE);
    g_array_free(stat, TRUE);
}

static const char *class_name_by_serial(hprof_dump *d, uint32_t serial)
{
    const hprof_load_class *lc = hprof_load_class_by_serial(d, serial);
    uint32_t len;
    const char *t = lc ? hprof_string_text(d, lc->name_id, &len) : NULL;
    return t ? hf_heap_display_name(&d->heap, t, len) : NULL;
}

static void add_traces(scan *sc)
{
    hprof_dump *d = sc->d;
    hf_heap *h = &d->heap;
    const unsigned idsz = sc->idsz;
    const uint8_t *data = h->base.data;
    GHashTable *frame_by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < sc->frames->len; i++) {
        uint64_t off = g_array_index(sc->frames, uint64_t, i);
        hprof_frame f;
        hprof_parse_stack_frame(data + off, h->base.size - off, idsz, &f);
        hf_hframe hf = {0};
        hf.cls = class_name_by_serial(d, f.class_serial);
        hf.method = hprof_intern_string(d, f.method);
        hf.sig = hprof_intern_string(d, f.sig);
        hf.source = f.source ? hprof_intern_string(d, f.source) : NULL;
        hf.line = f.line;
        g_hash_table_insert(frame_by_id, GSIZE_TO_POINTER(f.id), GSIZE_TO_POINTER(h->frames->len + 1));
        g_array_append_val(h->frames, hf);
    }
    for (guint i = 0; i < sc->traces->len; i++) {
        uint64_t off = g_array_index(sc->traces, uint64_t, i);
        hprof_trace t;
        hprof_parse_stack_trace(data + off, h->base.size - off, idsz, &t);
        hf_htrace ht = {.serial = t.serial, .thread = t.thread, .first = h->trace_frames->len,
                        .n = t.n_frames};
        for (uint32_t k = 0; k < t.n_frames; k++) {
            uint64_t fid = hprof_id(t.frames + (size_t)k * idsz, idsz);
            gpointer v = g_hash_table_lookup(frame_by_id, GSIZE_TO_POINTER(fid));
            uint32_t fi = v ? (uint32_t)GPOINTER_TO_SIZE(v) - 1 : UINT32_MAX;
            if (!v)
                hf_problem(&h->base, off - 9, "stack trace %u names frame 0x%" G_GINT64_MODIFIER
                           "x, which the dump lacks", t.serial, (guint64)fid);
            g_array_append_val(h->trace_frames, fi);
        }
        g_array_append_val(h->traces, ht);
    }
    g_hash_table_destroy(frame_by_id);
}

/* Threads: START THREAD records, then threads known only from a ROOT
 * THREAD OBJECT (jcmd/jmap dumps have no START THREAD). */
static void add_threads(scan *sc)
{
    hprof_dump *d = sc->d;
    hf_heap *h = &d->heap;
    GHashTable *snap_of = g_hash_table_new(g_direct_hash, g_direct_equal); /* serial -> snap+1 */
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint s = 0; s < h->snaps->len; s++) {
        GArray *roots = g_array_index(h->snaps, hf_hsnap, s).roots;
        for (guint i = 0; i < roots->len; i++) {
            const hf_hroot *r = &g_array_index(roots, hf_hroot, i);
            if (r->kind == HF_ROOT_THREAD_OBJECT)
                g_hash_table_insert(snap_of, GSIZE_TO_POINTER(r->thread), GSIZE_TO_POINTER(s + 1));
        }
    }
    uint32_t last = h->snaps->len ? h->snaps->len - 1 : 0;
    for (guint i = 0; i < sc->threads->len; i++) {
        uint64_t off = g_array_index(sc->threads, uint64_t, i);
        hprof_thread t;
        hprof_parse_start_thread(h->base.data + off, h->base.size - off, sc->idsz, &t);
        if (g_hash_table_contains(seen, GSIZE_TO_POINTER(t.serial)))
            continue; /* serials are reused only after END THREAD: keep the first */
        g_hash_table_add(seen, GSIZE_TO_POINTER(t.serial));
        hf_hthread ht = {.serial = t.serial, .trace = t.trace, .obj = t.obj};
        ht.name = t.name ? hprof_intern_string(d, t.name) : NULL;
        ht.group = t.group ? hprof_intern_string(d, t.group) : NULL;
        ht.parent = t.parent ? hprof_intern_string(d, t.parent) : NULL;
        gpointer s = g_hash_table_lookup(snap_of, GSIZE_TO_POINTER(t.serial));
        ht.snap = s ? (uint32_t)GPOINTER_TO_SIZE(s) - 1 : last;
        g_array_append_val(h->threads, ht);
    }
    for (guint s = 0; s < h->snaps->len; s++) {
        GArray *roots = g_array_index(h->snaps, hf_hsnap, s).roots;
        for (guint i = 0; i < roots->len; i++) {
            const hf_hroot *r = &g_array_index(roots, hf_hroot, i);
            if (r->kind != HF_ROOT_THREAD_OBJECT || g_hash_table_contains(seen, GSIZE_TO_POINTER(r->thread)))
                continue;
            g_hash_table_add(seen, GSIZE_TO_POINTER(r->thread));
            hf_hthread ht = {.serial = r->thread, .trace = (uint32_t)r->extra, .obj = r->id,
                             .snap = s};
            g_array_append_val(h->threads, ht);
        }
    }
    g_hash_table_destroy(seen);
    g_hash_table_destroy(snap_of);
}

static void finish(scan *sc)
{
    hprof_dump *d = sc->d;
    hf_heap *h = &d->heap;
    g_array_sort(sc->strings, cmp_strref);
    d->n_strings = sc->strings->len;
    d->strings = (hprof_strref *)(void *)g_array_free(sc->strings, FALSE);
    sc->strings = NULL;
    hf_serial_sort(d->load_classes); /* stable: a repeated serial finds its first */
    GHashTable *lc_by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < d->load_classes->len; i++) {
        hprof_load_class *lc = &g_array_index(d->load_classes, hprof_load_class, i);
        g_hash_table_insert(lc_by_id, GSIZE_TO_POINTER(lc->class_id), lc);
    }
    if (!h->snaps->len && d->sites->len)
        open_snap(sc); /* sites need a snapshot to live in */
    for (guint s = 0; s < h->snaps->len; s++) {
        GPtrArray *names = g_array_index(h->snaps, hf_hsnap, s).heap_names;
        for (guint i = 0; i < names->len; i++)
            names->pdata[i] = (gpointer)hprof_intern_string(d, GPOINTER_TO_SIZE(names->pdata[i]));
    }
    for (guint s = 0; s < h->snaps->len; s++)
        add_classes(sc, &g_array_index(h->snaps, hf_hsnap, s),
                    g_ptr_array_index(sc->class_dumps, s), lc_by_id);
    g_hash_table_destroy(lc_by_id);
    for (guint i = 0; i < d->sites_snap->len; i++) {
        uint32_t *s = &g_array_index(d->sites_snap, uint32_t, i);
        if (*s >= h->snaps->len)
            *s = h->snaps->len - 1;
    }
    add_traces(sc);
    add_threads(sc);
    hf_heap_finish(h);
}

void hprof_index(hprof_dump *d)
{
    hf_heap *h = &d->heap;
    const uint8_t *data = h->base.data;
    const size_t size = h->base.size;
    int64_t t0 = g_get_monotonic_time();
    scan sc = {.d = d, .idsz = h->id_size};
    sc.frames = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    sc.traces = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    sc.threads = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    sc.strings = g_array_new(FALSE, FALSE, sizeof(hprof_strref));
    sc.class_dumps = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    sc.hs = hprof_heapscan_new(d);
    d->load_classes = g_array_new(FALSE, FALSE, sizeof(hprof_load_class));
    d->sites = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    d->sites_snap = g_array_new(FALSE, FALSE, sizeof(uint32_t));

    size_t off = d->header_len;
    while (off < size) {
        if (size - off < 9) {
            hprof_heapscan_problem(sc.hs, off, "record header cut off by the end of the file");
            d->truncated = true;
            break;
        }
        uint8_t tag = data[off];
        uint32_t len = hprof_u4(data + off + 5);
        size_t body = off + 9, end = body + len;
        bool cut = end > size;
        if (cut) {
            hprof_heapscan_problem(sc.hs, off, "record 0x%02x of %u bytes cut off by the end of the file "
                       "(%zu bytes present)", tag, len, size - body);
            d->truncated = true;
            end = size;
        }
        const uint8_t *b = data + body;
        size_t blen = end - body;
        bool ok = true;
        d->n_records[tag]++;
        switch (tag) {
        case HPROF_STRING: {
            hprof_string s;
            if ((ok = !cut && hprof_parse_string(b, blen, sc.idsz, &s))) {
                hprof_strref r = {s.id, body};
                g_array_append_val(sc.strings, r);
            }
            break;
        }
        case HPROF_LOAD_CLASS: {
            hprof_load_class lc;
            if ((ok = hprof_parse_load_class(b, blen, sc.idsz, &lc)))
                g_array_append_val(d->load_classes, lc);
            break;
        }
        case HPROF_STACK_FRAME: {
            hprof_frame f;
            if ((ok = hprof_parse_stack_frame(b, blen, sc.idsz, &f)))
                g_array_append_val(sc.frames, body);
            break;
        }
        case HPROF_STACK_TRACE: {
            hprof_trace t;
            if ((ok = hprof_parse_stack_trace(b, blen, sc.idsz, &t)))
                g_array_append_val(sc.traces, body);
            break;
        }
        case HPROF_START_THREAD: {
            hprof_thread t;
            if ((ok = hprof_parse_start_thread(b, blen, sc.idsz, &t)))
                g_array_append_val(sc.threads, body);
            break;
        }
        case HPROF_ALLOC_SITES: {
            hprof_sites s;
            if ((ok = hprof_parse_alloc_sites(b, blen, sc.idsz, &s))) {
                /* a SITES record belongs to the heap dump that follows it
                 * (the agent writes sites, then the heap), else the last */
                uint32_t snap = h->snaps->len - (sc.cur ? 1 : 0);
                g_array_append_val(d->sites, body);
                g_array_append_val(d->sites_snap, snap);
            }
            break;
        }
        case HPROF_HEAP_DUMP:
            open_snap(&sc);
            queue_body(&sc, body, end, cut);
            sc.cur = NULL;
            break;
        case HPROF_HEAP_DUMP_SEGMENT:
            if (!sc.cur)
                open_snap(&sc);
            d->n_segments++;
            queue_body(&sc, body, end, cut);
            break;
        case HPROF_HEAP_DUMP_END:
            if (!sc.cur)
                hprof_heapscan_problem(sc.hs, off, "HEAP DUMP END without a heap dump segment before it");
            sc.cur = NULL;
            break;
        default: { /* records kept only as counts: their bodies checked */
            hprof_body st = hprof_check_body(tag, b, blen, sc.idsz);
            ok = st != HPROF_BODY_SHORT;
            if (st == HPROF_BODY_UNKNOWN_TAG) {
                d->n_records[tag]--;
                hprof_heapscan_problem(sc.hs, off, "unknown record tag 0x%02x (%u bytes) skipped",
                                       tag, len);
            }
            break;
        }
        }
        if (!ok && !cut)
            hprof_heapscan_problem(sc.hs, off, "record 0x%02x: body of %u bytes too short for its contents",
                       tag, len);
        if (cut)
            break;
        off = end;
    }
    hf_progress *pr = NULL;
    if (hprof_heapscan_bytes(sc.hs)) {
        char *name = g_path_get_basename(h->base.path);
        char *what = g_strdup_printf("indexing %s", name);
        pr = hf_progress_new(what, hprof_heapscan_bytes(sc.hs));
        g_free(what);
        g_free(name);
    }
    h->base.index_threads =
        hprof_heapscan_run(sc.hs, sc.class_dumps,
                           hprof_heapscan_threads(hprof_heapscan_bytes(sc.hs)), pr);
    hf_progress_phase(pr, "sorting");
    h->build_threads = h->base.index_threads;
    finish(&sc);

    hprof_heapscan_free(sc.hs);
    h->base.index_seconds = (g_get_monotonic_time() - t0) / 1e6;
    hf_progress_end(pr, "done, %.1f MB in %.2f s, %.0f MB/s, %u thread%s", size / 1e6,
                    h->base.index_seconds, size / 1e6 / MAX(h->base.index_seconds, 1e-6),
                    h->base.index_threads, h->base.index_threads == 1 ? "" : "s");
    g_array_free(sc.frames, TRUE);
    g_array_free(sc.traces, TRUE);
    g_array_free(sc.threads, TRUE);
    g_ptr_array_free(sc.class_dumps, TRUE);
}

/* ---- lookups in what the pass found (thread-safe: read-only after open) ---- */

static bool string_below(const void *ud, uint64_t i)
{
    const hprof_dump *d = ((const hf_search_key *)ud)->a;
    return d->strings[i].id < ((const hf_search_key *)ud)->key;
}

const char *hprof_string_text(const hprof_dump *d, uint64_t id, uint32_t *len)
{
    hf_search_key k = {d, id};
    uint64_t lo = hf_lower_bound(0, d->n_strings, string_below, &k);
    if (lo == d->n_strings || d->strings[lo].id != id)
        return NULL;
    uint64_t off = d->strings[lo].off;
    const hf_dump *b = &d->heap.base;
    uint32_t rlen = hprof_u4(b->data + off - 4);
    *len = rlen - d->heap.id_size;
    return (const char *)b->data + off + d->heap.id_size;
}

const char *hprof_intern_string(hprof_dump *d, uint64_t id)
{
    uint32_t len;
    const char *t = hprof_string_text(d, id, &len);
    if (t)
        return hf_heap_intern(&d->heap, t, len);
    char buf[32];
    g_snprintf(buf, sizeof buf, "0x%" G_GINT64_MODIFIER "x", (guint64)id);
    return hf_heap_intern(&d->heap, buf, strlen(buf));
}

const hprof_load_class *hprof_load_class_by_serial(const hprof_dump *d, uint32_t serial)
{
    int64_t i = hf_serial_find_array(d->load_classes, serial);
    return i >= 0 ? &g_array_index(d->load_classes, hprof_load_class, i) : NULL;
}

bool hprof_sites_next(const hprof_dump *d, uint32_t s, uint64_t *i, hprof_sites *st)
{
    const hf_dump *b = &d->heap.base;
    for (; *i < d->sites->len; (*i)++) {
        if (g_array_index(d->sites_snap, uint32_t, *i) != s)
            continue;
        uint64_t off = g_array_index(d->sites, uint64_t, *i);
        if (hprof_parse_alloc_sites(b->data + off, hprof_u4(b->data + off - 4), d->heap.id_size,
                                    st))
            return true;
    }
    return false;
}

void hprof_site_class(const hprof_dump *d, const hprof_site *site, GString *out)
{
    const hprof_load_class *lc = hprof_load_class_by_serial(d, site->class_serial);
    uint32_t nlen;
    const char *nt = lc ? hprof_string_text(d, lc->name_id, &nlen) : NULL;
    if (nt)
        hf_heap_display_name_append(out, nt, nlen);
    else if (site->array && hf_btype_name(site->array))
        g_string_append_printf(out, "%s[]", hf_btype_name(site->array));
    else
        g_string_append_printf(out, "class-serial-%u", site->class_serial);
}
