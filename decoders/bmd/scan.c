/*
 * scan.c - the passes over a BMD file, and the heap graph built from
 * the last one.
 *
 * Records may come in any order.  Every record's length follows from its
 * own bytes except an instance dump's: its values are those of its class's
 * instance fields, then its super class's, and so on, so its length needs
 * every class of that chain.  A pass reads the records in file order
 * straight from the map, remembering the field types of each class it
 * meets (a "layout").  An instance whose chain is not known yet (its class
 * comes later, or never) is delimited by trying the few places its values
 * could end (after 0, 1, 2, ... varints) and keeping the first from which
 * the following records read cleanly.  A pass that had to guess and found
 * classes it did not know when it started is followed by another, which
 * knows them from the start (so do a guess that proves wrong against the
 * layouts found later, and an instance that relied on a layout the pass
 * did not find again); a pass that found nothing new would only repeat
 * itself.  Files in order (all real ones) take one pass; a file with every
 * class at its end takes two.  Guessing is bounded (WORK_MAX record reads
 * a pass), so hostile input cannot make it crawl.
 *
 * Objects go to the heap's object index with their record offset as the
 * locator; strings, class definitions and legacy records are remembered by
 * offset and decoded after the last pass.  A record that cannot be read is
 * a problem with its offset: after a malformed one the reader looks for the
 * next place where records read cleanly again; a record cut off by the end
 * of the file ends the reading.
 *
 * Single-threaded, inside open().
 */
#include "decoders/bmd/bmd.h"
#include "decoders/core/search.h"
#include "decoders/heap/build.h"
#include "decoders/hprof/records.h"

#include <string.h>

#define MAX_PASSES 8
#define LOOKAHEAD 16         /* records that must read after a guessed end */
#define RESYNC_LOOKAHEAD 32  /* ... after a place found past a bad record */
#define GUESS_MAX_VALUES 256
#define GUESS_MAX_BYTES (64 * 1024)
#define RESYNC_MAX_BYTES (1024 * 1024)
#define WORK_MAX (64u << 20) /* record reads a pass may spend on guessing */

/* Field types of one class, for instance lengths. */
typedef struct {
    uint32_t super;
    uint32_t n;
    bool seen; /* defined in this pass (else known from an earlier one) */
    uint8_t types[]; /* HF_T_* of its declared instance fields */
} layout;

typedef struct {
    uint64_t at, end; /* offsets: values of the unknown class start, guessed end */
    uint64_t rec;     /* offset of the instance record */
    uint32_t cls;     /* the first class of the chain that was not known */
} guess;

typedef struct {
    bmd_dump *d;
    const uint8_t *data, *fend;
    GHashTable *layouts;   /* class id -> layout * (owned) */
    GHashTable *memo;      /* class id -> 1 + varints its values took */
    GHashTable *forward;   /* class ids used while not seen in this pass */
    GArray *guesses;       /* guess */
    GArray *strings;       /* bmd_str */
    GArray *classes;       /* uint64 offsets of class definition bodies */
    GArray *legacy;        /* bmd_legacy_ref */
    hf_hsnap *sn;
    uint64_t n_forward; /* this pass: instances read with a layout found later */
    uint64_t n_new;     /* this pass: layouts not known when it started */
    size_t hdr_len;     /* the file's header, data[0, hdr_len) */
    uint64_t work;      /* this pass: records read while guessing */
} scan;

/* Pseudo tag of read_record for a repeat of the file's header: cruncher
 * versions that read the HPROF twice wrote the header once per pass, the
 * second one between the class definitions and the instances.  Read as a
 * record it would be a STRING swallowing the records after it. */
#define TAG_HEADER 0

/* One record as read: where it is and what it holds. */
typedef struct {
    uint32_t tag;
    const uint8_t *start, *body, *next;
    const char *why;
    union {
        bmd_string s;
        bmd_hashed hs;
        bmd_class c;
        bmd_instance i;
        bmd_roots r;
        bmd_objarray oa;
        bmd_primarray pa;
        bmd_legacy l;
    } u;
    uint32_t missing;          /* BMD_UNKNOWN: the class not known */
    const uint8_t *unknown_at; /* BMD_UNKNOWN: where its values start */
    bool forward;              /* a layout of the chain was not seen yet in this pass */
} rec;

static layout *layout_of(const scan *sc, uint32_t id)
{
    return sc->layouts ? g_hash_table_lookup(sc->layouts, GUINT_TO_POINTER(id)) : NULL;
}

/* Skips the values of class cls and its supers at *p. */
static bmd_status skip_chain(const scan *sc, uint32_t cls, const uint8_t **p, rec *r)
{
    guint limit = sc->layouts ? g_hash_table_size(sc->layouts) : 0;
    for (guint depth = 0; cls; depth++) {
        layout *l = layout_of(sc, cls);
        if (!l) {
            r->missing = cls;
            r->unknown_at = *p;
            return BMD_UNKNOWN;
        }
        if (depth >= limit) {
            r->why = "its class chain loops";
            return BMD_BAD;
        }
        if (!l->seen)
            r->forward = true;
        for (uint32_t i = 0; i < l->n; i++) {
            uint64_t v;
            bmd_status st = bmd_value(l->types[i], p, sc->fend, &v);
            if (st != BMD_OK) {
                r->why = "a varint longer than 10 bytes";
                return st;
            }
        }
        cls = l->super;
    }
    return BMD_OK;
}

/* Reads the record at p.  strict adds checks that a real file always
 * passes (ids not 0, text in UTF-8, types and tags that exist), used when
 * testing whether bytes are records at all. */
static bmd_status read_record(const scan *sc, const uint8_t *p, bool strict, rec *r)
{
    memset(r, 0, sizeof *r);
    r->start = p;
    const uint8_t *e = sc->fend;
    if (sc->hdr_len && p > sc->data && (size_t)(e - p) >= sc->hdr_len &&
        memcmp(p, sc->data, sc->hdr_len) == 0) {
        r->tag = TAG_HEADER;
        r->next = p + sc->hdr_len;
        return BMD_OK;
    }
    bmd_status st = bmd_varint32(&p, e, &r->tag);
    if (st != BMD_OK) {
        r->why = "a varint longer than 10 bytes";
        return st;
    }
    r->body = p;
    switch (r->tag) {
    case BMD_STRING:
        st = bmd_parse_string(&p, e, &r->u.s, &r->why);
        if (st == BMD_OK && strict &&
            !g_utf8_validate_len((const char *)r->u.s.text, r->u.s.len, NULL)) {
            r->why = "text that is not UTF-8";
            st = BMD_BAD;
        }
        break;
    case BMD_HASHED_STRING:
        st = bmd_parse_hashed(&p, e, &r->u.hs, &r->why);
        break;
    case BMD_CLASS:
        st = bmd_parse_class(&p, e, &r->u.c, &r->why);
        if (st == BMD_OK && strict && !r->u.c.id) {
            r->why = "class id 0";
            st = BMD_BAD;
        }
        break;
    case BMD_INSTANCE:
        st = bmd_parse_instance(&p, e, &r->u.i, &r->why);
        if (st == BMD_OK && strict && (!r->u.i.id || !r->u.i.cls)) {
            r->why = "object or class id 0";
            st = BMD_BAD;
        }
        if (st == BMD_OK)
            st = skip_chain(sc, r->u.i.cls, &p, r);
        break;
    case BMD_ROOTS:
        st = bmd_parse_roots(&p, e, &r->u.r, &r->why);
        break;
    case BMD_OBJARRAY:
        st = bmd_parse_objarray(&p, e, &r->u.oa, &r->why);
        if (st == BMD_OK && strict && (!r->u.oa.id || !r->u.oa.cls)) {
            r->why = "object or class id 0";
            st = BMD_BAD;
        }
        break;
    case BMD_PRIMARRAY:
        st = bmd_parse_primarray(&p, e, &r->u.pa, &r->why);
        if (st == BMD_OK && strict &&
            (!r->u.pa.id || r->u.pa.type == 0 || !bmd_hf_type(r->u.pa.type))) {
            r->why = "object id 0 or an element type that is not primitive";
            st = BMD_BAD;
        }
        break;
    case BMD_LEGACY:
        st = bmd_parse_legacy(&p, e, &r->u.l, &r->why);
        if (st == BMD_OK && strict && !hprof_record_name(r->u.l.tag)) {
            r->why = "an HPROF tag that does not exist";
            st = BMD_BAD;
        }
        break;
    default:
        r->why = "an unknown record tag";
        return BMD_BAD;
    }
    r->next = p;
    return st;
}

static bmd_status skip_varints(const uint8_t **p, const uint8_t *end, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        bmd_status st = bmd_varint(p, end, &v);
        if (st != BMD_OK)
            return st;
    }
    return BMD_OK;
}

/* True when n records (or all up to the end of the file) read cleanly from
 * p.  An instance of a class not known ends the test successfully: what
 * follows it cannot be told.  (Trusting the count an earlier guess found
 * for that class would let one wrong guess spoil all later ones.) */
static bool plausible(scan *sc, const uint8_t *p, int n)
{
    for (int k = 0; k < n; k++) {
        if (p == sc->fend)
            return true;
        if (++sc->work > WORK_MAX)
            return false;
        rec r;
        bmd_status st = read_record(sc, p, true, &r);
        if (st == BMD_UNKNOWN)
            return true;
        if (st != BMD_OK)
            return false;
        p = r.next;
    }
    return true;
}

bool bmd_records_plausible(const uint8_t *p, const uint8_t *end, bool allow_cut)
{
    scan sc = {.fend = end};
    for (int k = 0; k < 8 && p < end; k++) {
        rec r;
        bmd_status st = read_record(&sc, p, true, &r);
        if (st == BMD_UNKNOWN) /* no layouts here: nothing more to tell */
            return true;
        if (st == BMD_CUT) /* the head (or a short file) ends inside it */
            return (allow_cut || k > 0) && r.tag >= 1 && r.tag < BMD_NTAGS;
        if (st != BMD_OK)
            return false;
        p = r.next;
    }
    return true;
}

/* Where the values of an instance whose chain is not known end: after the
 * fewest varints from which the following records read cleanly. */
static const uint8_t *guess_end(scan *sc, const rec *r)
{
    gpointer key = GUINT_TO_POINTER(r->missing);
    gpointer m = g_hash_table_lookup(sc->memo, key);
    if (m) { /* the count that fitted this class before */
        const uint8_t *q = r->unknown_at;
        if (skip_varints(&q, sc->fend, GPOINTER_TO_SIZE(m) - 1) == BMD_OK &&
            plausible(sc, q, LOOKAHEAD))
            return q;
    }
    const uint8_t *q = r->unknown_at;
    for (size_t k = 0; k <= GUESS_MAX_VALUES && q - r->unknown_at <= GUESS_MAX_BYTES; k++) {
        if (plausible(sc, q, LOOKAHEAD)) {
            g_hash_table_insert(sc->memo, key, GSIZE_TO_POINTER(k + 1));
            return q;
        }
        uint64_t v;
        if (bmd_varint(&q, sc->fend, &v) != BMD_OK)
            break;
    }
    return NULL;
}

/* The next place after a malformed record at p where records read again. */
static const uint8_t *resync(scan *sc, const uint8_t *p)
{
    for (const uint8_t *q = p + 1; q < sc->fend && q - p <= RESYNC_MAX_BYTES; q++)
        if (*q >= 1 && *q < BMD_NTAGS && plausible(sc, q, RESYNC_LOOKAHEAD))
            return q;
    return NULL;
}

/* ---- what a pass keeps ---- */

static void add_layout(scan *sc, const rec *r, uint64_t off)
{
    const bmd_class *c = &r->u.c;
    if (!c->id) {
        hf_problem(&sc->d->heap.base, off, "class definition with class id 0 left out");
        return;
    }
    layout *old = layout_of(sc, c->id);
    if (old && old->seen) {
        hf_problem(&sc->d->heap.base, off, "class 0x%x defined again: the first definition is used",
                   c->id);
        return;
    }
    if (!old)
        sc->n_new++;
    layout *l = g_malloc(sizeof *l + c->n_fields + 1);
    l->super = c->super;
    l->n = c->n_fields;
    l->seen = true;
    const uint8_t *q = c->fields;
    for (uint32_t i = 0; i < c->n_fields; i++) {
        bmd_member m;
        const char *why;
        bmd_next_member(&q, sc->fend, false, &m, &why); /* read before: cannot fail */
        l->types[i] = m.type;
    }
    g_hash_table_replace(sc->layouts, GUINT_TO_POINTER(c->id), l);
    uint64_t body = (uint64_t)(r->body - sc->data);
    g_array_append_val(sc->classes, body);
    hf_heap_add_object(sc->sn, c->id, off, true);
}

static void add_object(scan *sc, uint32_t id, uint64_t off, const char *what)
{
    if (!id) {
        hf_problem(&sc->d->heap.base, off, "%s with object id 0 (null) left out", what);
        return;
    }
    hf_heap_add_object(sc->sn, id, off, false);
}

static void take(scan *sc, const rec *r, uint64_t off)
{
    bmd_dump *d = sc->d;
    if (r->tag == TAG_HEADER) {
        d->n_headers++;
        return;
    }
    d->n_records[r->tag]++;
    switch (r->tag) {
    case BMD_STRING: {
        bmd_str s = {.id = r->u.s.id, .len = r->u.s.len,
                     .off = (uint64_t)(r->u.s.text - sc->data)};
        g_array_append_val(sc->strings, s);
        break;
    }
    case BMD_HASHED_STRING: {
        bmd_str s = {.id = r->u.hs.id, .len = r->u.hs.len, .hash = r->u.hs.hash, .hashed = true};
        g_array_append_val(sc->strings, s);
        break;
    }
    case BMD_CLASS:
        add_layout(sc, r, off);
        break;
    case BMD_INSTANCE:
        if (r->forward) {
            g_hash_table_add(sc->forward, GUINT_TO_POINTER(r->u.i.cls));
            sc->n_forward++;
        }
        add_object(sc, r->u.i.id, off, "instance dump");
        break;
    case BMD_ROOTS: {
        const uint8_t *q = r->u.r.ids;
        for (uint32_t i = 0; i < r->u.r.n; i++) {
            uint32_t id;
            bmd_varint32(&q, sc->fend, &id);
            hf_hroot root = {.id = id, .frame = UINT32_MAX, .kind = HF_ROOT_UNKNOWN};
            g_array_append_val(sc->sn->roots, root);
        }
        break;
    }
    case BMD_OBJARRAY:
        add_object(sc, r->u.oa.id, off, "object array");
        break;
    case BMD_PRIMARRAY:
        if (r->u.pa.type == 0 || !bmd_hf_type(r->u.pa.type))
            hf_problem(&d->heap.base, off, "primitive array 0x%x: element type %u is not a "
                       "primitive type (shown as byte[])", r->u.pa.id, r->u.pa.type);
        add_object(sc, r->u.pa.id, off, "primitive array");
        break;
    case BMD_LEGACY: {
        d->n_legacy[r->u.l.tag < 256 ? r->u.l.tag : 0]++;
        bmd_legacy_ref l = {r->u.l.tag, r->u.l.len, (uint64_t)(r->u.l.body - sc->data), off};
        g_array_append_val(sc->legacy, l);
        break;
    }
    }
}

/* One pass over every record. */
static void scan_pass(scan *sc)
{
    bmd_dump *d = sc->d;
    hf_dump *b = &d->heap.base;
    const uint8_t *p = sc->data + d->header_len;
    while (p < sc->fend) {
        uint64_t off = (uint64_t)(p - sc->data);
        rec r;
        bmd_status st = read_record(sc, p, false, &r);
        if (st == BMD_UNKNOWN) {
            const uint8_t *end = guess_end(sc, &r);
            guess g = {(uint64_t)(r.unknown_at - sc->data), 0, off, r.missing};
            if (!end) {
                end = resync(sc, r.unknown_at - 1);
                if (!end) {
                    hf_problem(b, off, "instance 0x%x needs class 0x%x, which the file has not "
                               "defined so far, and where its record ends cannot be told%s: "
                               "the rest of the file (%zu bytes) is not read",
                               r.u.i.id, r.missing, sc->work > WORK_MAX ? " (guessing "
                               "gave up: too many records out of order or damaged)" : "",
                               (size_t)(sc->fend - p));
                    break;
                }
                hf_problem(b, off, "instance 0x%x needs class 0x%x, which the file has not "
                           "defined so far, and where its record ends cannot be told: %zu bytes "
                           "skipped to the next record that reads",
                           r.u.i.id, r.missing, (size_t)(end - p));
            }
            g.end = (uint64_t)(end - sc->data);
            g_array_append_val(sc->guesses, g);
            r.next = end;
            st = BMD_OK;
        }
        if (st == BMD_CUT) {
            hf_problem(b, off, "%s record cut off by the end of the file (%zu bytes present)",
                       r.tag < BMD_NTAGS ? bmd_tag_names[r.tag] : "unknown",
                       (size_t)(sc->fend - p));
            d->truncated = true;
            break;
        }
        if (st == BMD_BAD) {
            const uint8_t *q = resync(sc, p);
            GString *what = g_string_new(NULL);
            if (r.tag >= 1 && r.tag < BMD_NTAGS)
                g_string_printf(what, "%s record: %s", bmd_tag_names[r.tag], r.why);
            else
                g_string_printf(what, "unknown record tag %u", r.tag);
            if (q)
                hf_problem(b, off, "%s; %zu bytes skipped to the next record that reads",
                           what->str, (size_t)(q - p));
            else
                hf_problem(b, off, "%s; the rest of the file (%zu bytes) cannot be read%s",
                           what->str, (size_t)(sc->fend - p), sc->work > WORK_MAX ?
                           " (guessing gave up: too many records out of order or damaged)" : "");
            g_string_free(what, TRUE);
            d->n_records[0]++;
            if (!q)
                break;
            p = q;
            continue;
        }
        take(sc, &r, off);
        p = r.next;
    }
}

/* After a pass: true when it must be read again (see the top).  A pass
 * that guessed and found classes it did not know at its start is read
 * again knowing them; a pass that found none would only repeat itself. */
static bool needs_another_pass(scan *sc)
{
    bool again = sc->guesses->len && sc->n_new;
    for (guint i = 0; i < sc->guesses->len && !again; i++) {
        const guess *g = &g_array_index(sc->guesses, guess, i);
        const uint8_t *p = sc->data + g->at;
        rec r = {0};
        if (skip_chain(sc, g->cls, &p, &r) == BMD_OK && p != sc->data + g->end)
            again = true;
    }
    /* a layout known from before but not found again came from bytes an
     * earlier pass misread: forget it */
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, sc->layouts);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        if (((layout *)v)->seen)
            continue;
        if (g_hash_table_contains(sc->forward, k))
            again = true;
        g_hash_table_iter_remove(&it);
    }
    return again;
}

static void reset_pass(scan *sc, uint64_t n_problems)
{
    bmd_dump *d = sc->d;
    hf_problems_truncate(&d->heap.base, n_problems);
    memset(d->n_records, 0, sizeof d->n_records);
    memset(d->n_legacy, 0, sizeof d->n_legacy);
    d->n_headers = 0;
    d->truncated = false;
    g_array_set_size(sc->guesses, 0);
    g_array_set_size(sc->strings, 0);
    g_array_set_size(sc->classes, 0);
    g_array_set_size(sc->legacy, 0);
    g_array_set_size(sc->sn->roots, 0);
    sc->sn->tmp[0].len = sc->sn->tmp[1].len = 0;
    g_hash_table_remove_all(sc->forward);
    sc->n_forward = 0;
    sc->n_new = 0;
    sc->work = 0;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, sc->layouts);
    while (g_hash_table_iter_next(&it, NULL, &v))
        ((layout *)v)->seen = false;
}

/* ---- strings and names ---- */

static void finish_strings(scan *sc, const bmd_names *names)
{
    bmd_dump *d = sc->d;
    hf_serial_sort(sc->strings); /* stable: the first of a repeated id stays first */
    guint dups = hf_serial_dedup(sc->strings, NULL, NULL);
    for (guint i = 0; i < sc->strings->len; i++) {
        bmd_str *s = &g_array_index(sc->strings, bmd_str, i);
        if (s->hashed) {
            d->n_hashed++;
            bool amb = false;
            const char *t = bmd_names_lookup(names, s->hash, s->len, &amb);
            if (t) {
                s->resolved = hf_heap_intern(&d->heap, t, strlen(t));
                d->n_resolved++;
                d->n_ambiguous += amb;
            }
        }
    }
    if (dups)
        hf_problem_nooff(&d->heap.base, "%u strings repeat an id seen before: the first is used",
                         dups);
    d->n_strings = sc->strings->len;
    d->strings = (bmd_str *)(void *)g_array_free(sc->strings, FALSE);
    sc->strings = NULL;
}

const bmd_str *bmd_string_by_id(const bmd_dump *d, uint32_t id)
{
    int64_t i = hf_serial_find(d->strings, d->n_strings, sizeof *d->strings, id);
    return i >= 0 ? &d->strings[i] : NULL;
}

/* Interned name of string id: a class's display name, or a field name. */
static const char *intern_name(bmd_dump *d, uint32_t id, bool is_class, uint32_t owner)
{
    hf_heap *h = &d->heap;
    const bmd_str *s = bmd_string_by_id(d, id);
    GString *t = g_string_new(NULL);
    if (!s) {
        d->n_missing_strings++;
        if (is_class)
            g_string_printf(t, "class.0x%x", owner);
        else
            g_string_printf(t, "string.%u", id);
    } else if (s->hashed && !s->resolved) {
        bmd_placeholder(t, s->len, s->hash);
    } else {
        const char *text = s->hashed ? s->resolved : (const char *)h->base.data + s->off;
        size_t len = s->hashed ? strlen(s->resolved) : s->len;
        if (is_class)
            hf_heap_display_name_append(t, text, len);
        else
            g_string_append_len(t, text, (gssize)len);
    }
    const char *r = hf_heap_intern(h, t->str, t->len);
    g_string_free(t, TRUE);
    return r;
}

/* Class definitions of the last pass -> hf_hclass entries. */
static void add_classes(scan *sc)
{
    bmd_dump *d = sc->d;
    hf_heap *h = &d->heap;
    GArray *decl = g_array_new(FALSE, TRUE, sizeof(hf_hfield));
    GArray *stat = g_array_new(FALSE, TRUE, sizeof(hf_hstatic));
    for (guint i = 0; i < sc->classes->len; i++) {
        const uint8_t *p = sc->data + g_array_index(sc->classes, uint64_t, i);
        bmd_class bc;
        const char *why;
        if (bmd_parse_class(&p, sc->fend, &bc, &why) != BMD_OK)
            continue; /* cannot happen: the pass read it */
        hf_hclass c = {0};
        c.id = bc.id;
        c.super_id = bc.super;
        c.name = intern_name(d, bc.name, true, bc.id);
        c.omitted = bc.discarded;
        g_array_set_size(decl, 0);
        g_array_set_size(stat, 0);
        const uint8_t *q = bc.statics;
        for (uint32_t k = 0; k < bc.n_statics; k++) {
            bmd_member m;
            bmd_next_member(&q, sc->fend, true, &m, &why);
            hf_hstatic s = {intern_name(d, m.name, false, 0), m.value, m.type};
            g_array_append_val(stat, s);
        }
        uint64_t size = bc.discarded;
        q = bc.fields;
        for (uint32_t k = 0; k < bc.n_fields; k++) {
            bmd_member m;
            bmd_next_member(&q, sc->fend, false, &m, &why);
            hf_hfield f = {0};
            f.name = intern_name(d, m.name, false, 0);
            f.type = m.type;
            size += hf_btype_size(m.type, h->id_size);
            g_array_append_val(decl, f);
        }
        c.inst_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        c.decl = (hf_hfield *)(void *)decl->data;
        c.n_decl = decl->len;
        c.statics = (hf_hstatic *)(void *)stat->data;
        c.n_statics = stat->len;
        hf_heap_add_class(h, sc->sn, &c);
    }
    g_array_free(decl, TRUE);
    g_array_free(stat, TRUE);
}

/* Instances read with a guessed length: those whose class came later were
 * read before their class; the others need a class the file never
 * defines (one problem per class). */
static void report_guesses(scan *sc)
{
    bmd_dump *d = sc->d;
    GHashTable *first = g_hash_table_new(g_direct_hash, g_direct_equal);
    GHashTable *count = g_hash_table_new(g_direct_hash, g_direct_equal);
    GArray *order = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    d->n_forward = sc->n_forward;
    for (guint i = 0; i < sc->guesses->len; i++) {
        const guess *g = &g_array_index(sc->guesses, guess, i);
        gpointer k = GUINT_TO_POINTER(g->cls);
        if (layout_of(sc, g->cls)) {
            d->n_forward++;
            continue;
        }
        d->n_guessed++;
        if (!g_hash_table_contains(first, k)) {
            g_hash_table_insert(first, k, GSIZE_TO_POINTER(i));
            g_array_append_val(order, g->cls);
        }
        g_hash_table_insert(count, k, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(g_hash_table_lookup(count, k)) + 1));
    }
    for (guint i = 0; i < order->len; i++) {
        gpointer k = GUINT_TO_POINTER(g_array_index(order, uint32_t, i));
        const guess *g = &g_array_index(sc->guesses, guess, GPOINTER_TO_SIZE(g_hash_table_lookup(first, k)));
        hf_problem(&d->heap.base, g->rec, "%zu instances need class 0x%x, which the file never "
                   "defines: where each record ends was inferred from the records after it, "
                   "and the values of that class are not shown",
                   GPOINTER_TO_SIZE(g_hash_table_lookup(count, k)), g->cls);
    }
    g_array_free(order, TRUE);
    g_hash_table_destroy(first);
    g_hash_table_destroy(count);
}

/* ---- the whole index ---- */

void bmd_index(bmd_dump *d, const bmd_names *names)
{
    hf_heap *h = &d->heap;
    scan sc = {.d = d, .data = h->base.data, .fend = h->base.data + h->base.size,
               .hdr_len = d->header_len};
    sc.layouts = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    sc.memo = g_hash_table_new(g_direct_hash, g_direct_equal);
    sc.forward = g_hash_table_new(g_direct_hash, g_direct_equal);
    sc.guesses = g_array_new(FALSE, FALSE, sizeof(guess));
    sc.strings = g_array_new(FALSE, FALSE, sizeof(bmd_str));
    sc.classes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    sc.legacy = g_array_new(FALSE, FALSE, sizeof(bmd_legacy_ref));
    sc.sn = hf_heap_add_snap(h);
    uint64_t n_problems = h->base.n_problems;
    bool again = false;
    for (d->passes = 1;; d->passes++) {
        scan_pass(&sc);
        again = needs_another_pass(&sc);
        if (!again || d->passes == MAX_PASSES)
            break;
        reset_pass(&sc, n_problems);
    }
    if (again)
        hf_problem_nooff(&h->base, "the order of the records could not be settled in %d passes: "
                         "some instances may be read wrongly", MAX_PASSES);
    report_guesses(&sc);
    finish_strings(&sc, names);
    add_classes(&sc);
    bmd_add_legacy(d, (const bmd_legacy_ref *)(void *)sc.legacy->data, sc.legacy->len);
    hf_heap_finish(h);
    /* supers the file never defines (hf_heap_finish resolved the others) */
    for (guint i = 0; i < sc.sn->classes->len; i++) {
        const hf_hclass *c = hf_heap_class(sc.sn, i);
        if (c->super_id && c->super < 0)
            hf_problem_nooff(&h->base, "class %s (0x%" G_GINT64_MODIFIER "x) names super class "
                             "0x%" G_GINT64_MODIFIER "x, which the file never defines",
                             c->dir, (guint64)c->id, (guint64)c->super_id);
    }
    if (d->n_missing_strings)
        hf_problem_nooff(&h->base, "%" G_GUINT64_FORMAT " class or field names refer to strings "
                         "the file lacks (shown as class.0xID or string.ID)",
                         (guint64)d->n_missing_strings);
    g_hash_table_destroy(sc.layouts);
    g_hash_table_destroy(sc.memo);
    g_hash_table_destroy(sc.forward);
    g_array_free(sc.guesses, TRUE);
    g_array_free(sc.classes, TRUE);
    g_array_free(sc.legacy, TRUE);
}
