/*
 * legacy.c - the legacy HPROF records a BMD file carries (tag 8: the
 * original record tag and body): stack frames, stack traces and threads
 * become the heap graph's frames, traces and threads; the others are
 * checked and counted.  Every body is decoded with the parsers of
 * decoders/hprof/records.h, the same code that reads an HPROF file.
 *
 * The bodies keep the original dump's ids.  The cruncher rewrote the
 * STRING and LOAD CLASS records with ids of its own (as BMD strings and
 * class definitions), so names inside legacy records resolve only against
 * legacy STRING and LOAD CLASS records, which real files do not carry:
 * frame names then read 0xID, thread names are left out.
 *
 * Runs once inside open() (bmd_index), single-threaded.
 */
#include "decoders/bmd/bmd.h"
#include "decoders/heap/build.h"
#include "decoders/hprof/records.h"

#include <string.h>

typedef struct {
    GHashTable *strings; /* original HPROF string id -> bmd_legacy_ref * */
    GHashTable *classes; /* LOAD CLASS serial -> name string id + 1 */
} legacy_names;

/* Identifier size of the legacy bodies: the first record whose length
 * tells; 4 (what the cruncher supports) when none does. */
static unsigned legacy_idsz(const bmd_dump *d, const bmd_legacy_ref *refs, guint n)
{
    for (guint i = 0; i < n; i++) {
        const bmd_legacy_ref *l = &refs[i];
        const uint8_t *b = d->heap.base.data + l->body;
        switch (l->tag) {
        case HPROF_STACK_FRAME:
        case HPROF_START_THREAD:
            if (l->len == 24 || l->len == 40)
                return (l->len - 8) / 4;
            break;
        case HPROF_LOAD_CLASS:
            if (l->len == 16 || l->len == 24)
                return (l->len - 8) / 2;
            break;
        case HPROF_STACK_TRACE:
            if (l->len > 12) {
                uint32_t n = hprof_u4(b + 8);
                if (n && (uint64_t)n * 4 == l->len - 12)
                    return 4;
                if (n && (uint64_t)n * 8 == l->len - 12)
                    return 8;
            }
            break;
        }
    }
    return 4;
}

/* Text of an original HPROF string id, NULL when the file lacks it. */
static const char *legacy_text(bmd_dump *d, const legacy_names *ln, uint64_t id)
{
    const bmd_legacy_ref *l = id ? g_hash_table_lookup(ln->strings, GSIZE_TO_POINTER(id)) : NULL;
    hf_heap *h = &d->heap;
    if (!l)
        return NULL;
    hprof_string s;
    hprof_parse_string(h->base.data + l->body, l->len, d->legacy_idsz, &s);
    return hf_heap_intern(h, (const char *)s.text, s.len);
}

/* The same, or "0xID" when the file lacks it (frames must say something). */
static const char *legacy_string(bmd_dump *d, const legacy_names *ln, uint64_t id)
{
    hf_heap *h = &d->heap;
    const char *t = legacy_text(d, ln, id);
    if (t)
        return t;
    char buf[32];
    g_snprintf(buf, sizeof buf, "0x%" G_GINT64_MODIFIER "x", (guint64)id);
    return hf_heap_intern(h, buf, strlen(buf));
}

void bmd_add_legacy(bmd_dump *d, const bmd_legacy_ref *refs, guint n)
{
    hf_heap *h = &d->heap;
    const uint8_t *data = h->base.data;
    const unsigned idsz = d->legacy_idsz = legacy_idsz(d, refs, n);
    legacy_names ln = {g_hash_table_new(g_direct_hash, g_direct_equal),
                       g_hash_table_new(g_direct_hash, g_direct_equal)};
    GHashTable *frame_by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
    GHashTable *threads = g_hash_table_new(g_direct_hash, g_direct_equal);
    /* strings and classes first: records come in any order */
    for (guint i = 0; i < n; i++) {
        const bmd_legacy_ref *l = &refs[i];
        const uint8_t *b = data + l->body;
        hprof_string s;
        hprof_load_class lc;
        if (l->tag == HPROF_STRING && hprof_parse_string(b, l->len, idsz, &s) &&
            !g_hash_table_contains(ln.strings, GSIZE_TO_POINTER(s.id)))
            g_hash_table_insert(ln.strings, GSIZE_TO_POINTER(s.id), (gpointer)l);
        else if (l->tag == HPROF_LOAD_CLASS && hprof_parse_load_class(b, l->len, idsz, &lc))
            g_hash_table_insert(ln.classes, GUINT_TO_POINTER(lc.serial),
                                GSIZE_TO_POINTER(lc.name_id + 1));
    }
    for (guint i = 0; i < n; i++) {
        const bmd_legacy_ref *l = &refs[i];
        if (l->tag != HPROF_STACK_FRAME)
            continue;
        hprof_frame f;
        if (!hprof_parse_stack_frame(data + l->body, l->len, idsz, &f))
            continue; /* reported below */
        hf_hframe hf = {0};
        gpointer nid = g_hash_table_lookup(ln.classes, GUINT_TO_POINTER(f.class_serial));
        if (nid) {
            const char *n = legacy_string(d, &ln, GPOINTER_TO_SIZE(nid) - 1);
            hf.cls = hf_heap_display_name(h, n, strlen(n));
        }
        hf.method = legacy_string(d, &ln, f.method);
        hf.sig = legacy_string(d, &ln, f.sig);
        hf.source = f.source ? legacy_string(d, &ln, f.source) : NULL;
        hf.line = f.line;
        g_hash_table_insert(frame_by_id, GSIZE_TO_POINTER(f.id), GSIZE_TO_POINTER(h->frames->len + 1));
        g_array_append_val(h->frames, hf);
    }
    for (guint i = 0; i < n; i++) {
        const bmd_legacy_ref *l = &refs[i];
        const uint8_t *b = data + l->body;
        bool ok = true;
        switch (l->tag) {
        case HPROF_STACK_TRACE: {
            hprof_trace t;
            if (!(ok = hprof_parse_stack_trace(b, l->len, idsz, &t)))
                break;
            hf_htrace ht = {.serial = t.serial, .thread = t.thread,
                            .first = h->trace_frames->len, .n = t.n_frames};
            for (uint32_t k = 0; k < t.n_frames; k++) {
                uint64_t fid = hprof_id(t.frames + (size_t)k * idsz, idsz);
                gpointer v = g_hash_table_lookup(frame_by_id, GSIZE_TO_POINTER(fid));
                uint32_t fi = v ? (uint32_t)GPOINTER_TO_SIZE(v) - 1 : UINT32_MAX;
                if (!v)
                    hf_problem(&h->base, l->rec, "stack trace %u names frame 0x%" G_GINT64_MODIFIER
                               "x, which the file lacks", t.serial, (guint64)fid);
                g_array_append_val(h->trace_frames, fi);
            }
            g_array_append_val(h->traces, ht);
            break;
        }
        case HPROF_START_THREAD: {
            hprof_thread t;
            if (!(ok = hprof_parse_start_thread(b, l->len, idsz, &t)))
                break;
            if (g_hash_table_contains(threads, GUINT_TO_POINTER(t.serial)))
                break; /* serials are reused only after END THREAD: keep the first */
            g_hash_table_add(threads, GUINT_TO_POINTER(t.serial));
            /* The object id is the original HPROF one, not this file's:
             * no snapshot holds it (snap out of range keeps the heap layer
             * from looking it up). */
            hf_hthread ht = {.serial = t.serial, .trace = t.trace, .obj = t.obj,
                             .snap = UINT32_MAX};
            /* cruncher output lacks these strings (it rewrote the string
             * records with ids of its own): then no name at all, rather
             * than an id nothing else uses */
            ht.name = legacy_text(d, &ln, t.name);
            ht.group = legacy_text(d, &ln, t.group);
            ht.parent = legacy_text(d, &ln, t.parent);
            g_array_append_val(h->threads, ht);
            break;
        }
        case HPROF_HEAP_DUMP:
        case HPROF_HEAP_DUMP_SEGMENT:
        case HPROF_HEAP_DUMP_END:
            hf_problem(&h->base, l->rec, "legacy HPROF heap dump record 0x%02x (%u bytes) not "
                       "decoded: a BMD file holds its heap in BMD records", l->tag, l->len);
            break;
        default: { /* the records read above, and those kept as counts */
            hprof_body st = hprof_check_body(l->tag, b, l->len, idsz);
            ok = st != HPROF_BODY_SHORT;
            if (st == HPROF_BODY_UNKNOWN_TAG)
                hf_problem(&h->base, l->rec, "legacy record with unknown HPROF tag 0x%x (%u "
                           "bytes) skipped", l->tag, l->len);
            break;
        }
        }
        if (!ok)
            hf_problem(&h->base, l->rec, "legacy HPROF record 0x%02x: body of %u bytes too "
                       "short for its contents", l->tag, l->len);
    }
    g_hash_table_destroy(ln.strings);
    g_hash_table_destroy(ln.classes);
    g_hash_table_destroy(frame_by_id);
    g_hash_table_destroy(threads);
}
