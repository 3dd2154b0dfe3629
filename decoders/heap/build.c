/*
 * build.c - building the neutral heap graph (heap.h; build.h): class display
 * names, field layouts, the sorted object index, per-class counts and the
 * histogram order, traces and threads.  Sizes come from sizes.c.
 *
 * Everything here runs once, single-threaded, inside a decoder's open().
 */
#include "decoders/core/keeparray.h"
#include "decoders/heap/build.h"
#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"
#include "decoders/heap/tables.h"
#include "decoders/core/names.h"
#include "decoders/core/search.h"
#include "decoders/heap/profile.h"
#include "decoders/heap/retained.h"

#include <string.h>

void hf_heap_init(hf_heap *h, const hf_dump_ops *ops, const hf_heap_codec *codec,
                  const char *path, GMappedFile *map, unsigned id_size)
{
    hf_dump_init(&h->base, ops, path, map);
    h->codec = codec;
    h->id_size = id_size;
    h->chunk = g_string_chunk_new(64 * 1024);
    h->snaps = g_array_new(FALSE, TRUE, sizeof(hf_hsnap));
    h->frames = g_array_new(FALSE, TRUE, sizeof(hf_hframe));
    h->trace_frames = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    h->traces = g_array_new(FALSE, TRUE, sizeof(hf_htrace));
    h->threads = g_array_new(FALSE, TRUE, sizeof(hf_hthread));
}

static void free_class(hf_hclass *c)
{
    g_free(c->decl);
    g_free(c->own_refs);
    g_free(c->by_name);
    g_free(c->statics);
}

static void free_snap(hf_hsnap *sn)
{
    if (sn->classes) {
        for (guint i = 0; i < sn->classes->len; i++)
            free_class(&g_array_index(sn->classes, hf_hclass, i));
        g_array_free(sn->classes, TRUE);
    }
    if (sn->class_by_id)
        g_hash_table_destroy(sn->class_by_id);
    if (sn->class_by_dir)
        g_hash_table_destroy(sn->class_by_dir);
    g_free(sn->hist);
    hf_keeparray_free(sn->locs);
    hf_keeparray_free(sn->cls);
    hf_keeparray_free(sn->samples);
    if (sn->roots)
        g_array_free(sn->roots, TRUE);
    if (sn->heap_names)
        g_ptr_array_free(sn->heap_names, TRUE);
    if (sn->heap_switch)
        g_array_free(sn->heap_switch, TRUE);
    g_free(sn->tmp[0].v);
    g_free(sn->tmp[1].v);
    hf_heap_free_runs(sn);
}

void hf_heap_clear(hf_heap *h)
{
    if (h->snaps) {
        for (guint i = 0; i < h->snaps->len; i++)
            free_snap(&g_array_index(h->snaps, hf_hsnap, i));
        g_array_free(h->snaps, TRUE);
    }
    if (h->frames)
        g_array_free(h->frames, TRUE);
    if (h->trace_frames)
        g_array_free(h->trace_frames, TRUE);
    if (h->traces)
        g_array_free(h->traces, TRUE);
    if (h->threads)
        g_array_free(h->threads, TRUE);
    if (h->chunk)
        g_string_chunk_free(h->chunk);
    hf_heap_pprof_free(h->pprof);
    hf_heap_graphs_free(h->graphs);
    hf_htables_free(h->tables);
    hf_dump_clear(&h->base);
}

hf_hsnap *hf_heap_add_snap(hf_heap *h)
{
    hf_hsnap sn = {0};
    sn.number = h->snaps->len + 1;
    sn.classes = g_array_new(FALSE, TRUE, sizeof(hf_hclass));
    sn.class_by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
    sn.class_by_dir = g_hash_table_new(g_str_hash, g_str_equal);
    sn.roots = g_array_new(FALSE, FALSE, sizeof(hf_hroot));
    sn.heap_names = g_ptr_array_new();
    sn.heap_switch = g_array_new(FALSE, FALSE, sizeof(hf_hswitch));
    sn.class_class = sn.string_class = UINT32_MAX;
    for (int t = 0; t < HF_T_MAX; t++)
        sn.prim_class[t] = UINT32_MAX;
    g_array_append_val(h->snaps, sn);
    return &g_array_index(h->snaps, hf_hsnap, h->snaps->len - 1);
}

const char *hf_heap_intern(hf_heap *h, const char *s, size_t len)
{
    return g_string_chunk_insert_len(h->chunk, s ? s : "", s ? (gssize)len : 0);
}

/* ids are keys of a direct hash: this decoder needs 64-bit pointers. */
G_STATIC_ASSERT(sizeof(gpointer) >= sizeof(uint64_t));

uint32_t hf_heap_add_class(hf_heap *h, hf_hsnap *sn, const hf_hclass *c)
{
    if (c->id && g_hash_table_contains(sn->class_by_id, GSIZE_TO_POINTER(c->id)))
        return GPOINTER_TO_SIZE(g_hash_table_lookup(sn->class_by_id, GSIZE_TO_POINTER(c->id))) - 1;
    hf_hclass k = *c;
    uint32_t idx = sn->classes->len;
    k.decl = c->n_decl ? g_memdup2(c->decl, c->n_decl * sizeof *c->decl) : NULL;
    k.statics = c->n_statics ? g_memdup2(c->statics, c->n_statics * sizeof *c->statics) : NULL;
    for (uint32_t i = 0; i < k.n_decl; i++)
        k.decl[i].decl = idx;
    k.own_refs = k.by_name = NULL;
    k.super = -1;
    g_array_append_val(sn->classes, k);
    if (c->id)
        g_hash_table_insert(sn->class_by_id, GSIZE_TO_POINTER(c->id), GSIZE_TO_POINTER(idx + 1));
    return idx;
}

void hf_heap_display_name_append(GString *s, const char *in, size_t len)
{
    static const char *const prim[128] = {
        ['Z'] = "boolean", ['C'] = "char", ['F'] = "float", ['D'] = "double",
        ['B'] = "byte",    ['S'] = "short", ['I'] = "int",  ['J'] = "long", ['V'] = "void",
    };
    size_t dims = 0;
    while (dims < len && in[dims] == '[')
        dims++;
    const char *base = in + dims;
    size_t blen = len - dims;
    if (dims && blen == 1 && (unsigned char)base[0] < 128 && prim[(unsigned char)base[0]]) {
        g_string_append(s, prim[(unsigned char)base[0]]);
    } else {
        if (dims && blen >= 2 && base[0] == 'L' && base[blen - 1] == ';') {
            base++;
            blen -= 2;
        }
        /* Hidden classes are "Foo$$Lambda$14+0x0000000800c03000" inside the
         * JVM and "Foo$$Lambda$14/0x0000000800c03000" in its histogram. */
        const char *plus = NULL;
        for (size_t i = 0; i + 3 <= blen; i++)
            if (base[i] == '+' && base[i + 1] == '0' && base[i + 2] == 'x') {
                size_t j = i + 3;
                while (j < blen && g_ascii_isxdigit(base[j]))
                    j++;
                if (j == blen && j > i + 3)
                    plus = base + i;
            }
        for (size_t i = 0; i < blen; i++)
            g_string_append_c(s, base + i == plus ? '/' : base[i] == '/' ? '.' : base[i]);
    }
    for (size_t i = 0; i < dims; i++)
        g_string_append(s, "[]");
}

const char *hf_heap_display_name(hf_heap *h, const char *in, size_t len)
{
    GString *s = g_string_sized_new(len + 16);
    hf_heap_display_name_append(s, in, len);
    const char *r = hf_heap_intern(h, s->str, s->len);
    g_string_free(s, TRUE);
    return r;
}


/* ---- classes ---- */

static uint32_t synth_class(hf_heap *h, hf_hsnap *sn, const char *name, unsigned elem)
{
    hf_hclass c = {0};
    c.name = hf_heap_intern(h, name, strlen(name));
    c.elem = elem;
    c.synthetic = true;
    return hf_heap_add_class(h, sn, &c);
}

/* Class index of the array class of primitive type t, made up if the file
 * has none (HotSpot need not write LOAD CLASS for them). */
static uint32_t prim_class(hf_heap *h, hf_hsnap *sn, unsigned t)
{
    if (t >= HF_T_MAX || t == HF_T_OBJECT || !hf_btype_name(t))
        t = HF_T_BYTE; /* caller reported the bad type */
    if (sn->prim_class[t] == UINT32_MAX) {
        char name[32];
        g_snprintf(name, sizeof name, "%s[]", hf_btype_name(t));
        sn->prim_class[t] = synth_class(h, sn, name, t);
    }
    return sn->prim_class[t];
}


/* Lays out c's instance data, super first: its own fields' offsets and
 * reference offsets, the chain's totals (fields.h walks the chain). */
static void lay_out(hf_heap *h, hf_hsnap *sn, uint32_t ci, int depth)
{
    hf_hclass *c = &g_array_index(sn->classes, hf_hclass, ci);
    if (c->own_refs || depth > HF_HCHAIN_MAX)
        return;
    hf_hclass *sup = NULL;
    if (c->super >= 0) {
        lay_out(h, sn, (uint32_t)c->super, depth + 1);
        c = &g_array_index(sn->classes, hf_hclass, ci); /* lay_out may grow nothing, but be safe */
        if (c->own_refs)
            return; /* a chain that loops back to c laid it out already */
        sup = &g_array_index(sn->classes, hf_hclass, c->super);
        if (!sup->own_refs && depth >= HF_HCHAIN_MAX)
            sup = NULL; /* a cycle, or too deep: ignore the chain */
    }
    uint32_t off = 0, nrefs = 0;
    for (uint32_t i = 0; i < c->n_decl; i++) {
        c->decl[i].offset = off;
        off += hf_btype_size(c->decl[i].type, h->id_size);
        nrefs += c->decl[i].type == HF_T_OBJECT;
    }
    if (sup && ((uint64_t)c->n_decl + sup->n_fields > HF_HFIELDS_MAX ||
                (uint64_t)off + sup->data_size > INT32_MAX)) {
        hf_problem_nooff(&h->base, "class %s: %" G_GUINT64_FORMAT " instance fields with its "
                         "super classes' (at most %u): laid out without them", c->name,
                         (guint64)c->n_decl + sup->n_fields, HF_HFIELDS_MAX);
        sup = NULL;
    }
    hf_hclass_index_names(c);
    c->own_refs = g_new(uint32_t, nrefs + 1); /* non-NULL marks "done" */
    c->n_own_refs = 0;
    for (uint32_t i = 0; i < c->n_decl; i++)
        if (c->decl[i].type == HF_T_OBJECT)
            c->own_refs[c->n_own_refs++] = c->decl[i].offset;
    c->n_fields = c->n_decl + (sup ? sup->n_fields : 0);
    c->n_refs = nrefs + (sup ? sup->n_refs : 0);
    c->data_size = off + (sup ? sup->data_size : 0);
    hf_heap_size_class(h, sn, c, sup);
}

static int cmp_hist(gconstpointer a, gconstpointer b, gpointer ud)
{
    const hf_hsnap *sn = ud;
    const hf_hclass *x = &g_array_index(sn->classes, hf_hclass, *(const uint32_t *)a);
    const hf_hclass *y = &g_array_index(sn->classes, hf_hclass, *(const uint32_t *)b);
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->dir, y->dir);
}

static void finish_classes(hf_heap *h, hf_hsnap *sn)
{
    /* Array classes and java.lang.Class by name. */
    for (guint i = 0; i < sn->classes->len; i++) {
        hf_hclass *c = &g_array_index(sn->classes, hf_hclass, i);
        if (strcmp(c->name, "java.lang.Class") == 0 && sn->class_class == UINT32_MAX)
            sn->class_class = i;
        if (strcmp(c->name, "java.lang.String") == 0 && sn->string_class == UINT32_MAX)
            sn->string_class = i;
        size_t nl = strlen(c->name);
        if (nl > 2 && strcmp(c->name + nl - 2, "[]") == 0) {
            c->elem = HF_T_OBJECT;
            for (unsigned t = 0; t < HF_T_MAX; t++) {
                const char *tn = hf_btype_name(t);
                if (t != HF_T_OBJECT && tn && nl == strlen(tn) + 2 &&
                    strncmp(c->name, tn, nl - 2) == 0) {
                    c->elem = t;
                    if (sn->prim_class[t] == UINT32_MAX)
                        sn->prim_class[t] = i;
                }
            }
        }
    }
    if (sn->class_class == UINT32_MAX)
        sn->class_class = synth_class(h, sn, "java.lang.Class", 0);
    /* Supers. */
    for (guint i = 0; i < sn->classes->len; i++) {
        hf_hclass *c = &g_array_index(sn->classes, hf_hclass, i);
        c->super = c->super_id ? hf_heap_class_by_id(sn, c->super_id) : -1;
        if (c->super == (int64_t)i)
            c->super = -1;
    }
    for (guint i = 0; i < sn->classes->len; i++)
        lay_out(h, sn, i, 0);
    if (sn->string_class != UINT32_MAX) {
        const hf_hclass *c = &g_array_index(sn->classes, hf_hclass, sn->string_class);
        int32_t *slot[] = {&sn->str_value, &sn->str_coder, &sn->str_offset, &sn->str_count};
        const char *names[] = {"value", "coder", "offset", "count"};
        for (int k = 0; k < 4; k++)
            *slot[k] = -1;
        hf_hfields it;
        hf_hfields_begin(&it, sn, c);
        while (hf_hfields_next(&it))
            for (int k = 0; k < 4; k++)
                if (it.f->decl == sn->string_class && strcmp(it.f->name, names[k]) == 0)
                    *slot[k] = (int32_t)it.index;
    } else {
        sn->str_value = sn->str_coder = sn->str_offset = sn->str_count = -1;
    }
}

/* Directory names: escaped display names, "@0xID" on the second and later
 * classes of one name. */
static void name_dirs(hf_heap *h, hf_hsnap *sn)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < sn->classes->len; i++) {
        hf_hclass *c = &g_array_index(sn->classes, hf_hclass, i);
        g_string_truncate(s, 0);
        hf_name_escape_append(s, c->name, strlen(c->name));
        if (s->len > HF_HNAME_KEEP) {
            g_string_truncate(s, hf_hname_cut(s->str));
            g_string_append_c(s, '~');
        }
        if (g_hash_table_contains(sn->class_by_dir, s->str))
            g_string_append_printf(s, "@0x%" G_GINT64_MODIFIER "x", (guint64)c->id);
        while (g_hash_table_contains(sn->class_by_dir, s->str))
            g_string_append_printf(s, "@%u", i); /* synthesized twins: never in practice */
        c->dir = hf_heap_intern(h, s->str, s->len);
        g_hash_table_insert(sn->class_by_dir, (gpointer)c->dir, GSIZE_TO_POINTER(i + 1));
    }
    g_string_free(s, TRUE);
}

/* ---- the object index ---- */

/* Small direct-mapped cache in front of class_by_id: the fill loop asks
 * once per object, and GHashTable's lookup is the slowest step there. */
typedef struct {
    uint64_t id[1024];
    uint32_t idx[1024];
} class_cache;

static int64_t cached_class(hf_heap *h, hf_hsnap *sn, class_cache *cc, uint64_t id, uint64_t loc)
{
    unsigned k = (unsigned)((id >> 3) ^ (id >> 13)) & 1023;
    if (cc->id[k] == id && cc->idx[k] != UINT32_MAX)
        return cc->idx[k];
    int64_t c = hf_heap_class_by_id(sn, id);
    if (c < 0) {
        char name[64];
        g_snprintf(name, sizeof name, "unknown.0x%" G_GINT64_MODIFIER "x", (guint64)id);
        hf_hclass u = {0};
        u.id = id;
        u.name = hf_heap_intern(h, name, strlen(name));
        u.synthetic = true;
        c = hf_heap_add_class(h, sn, &u);
        hf_hclass *uc = &g_array_index(sn->classes, hf_hclass, c);
        uc->own_refs = g_new0(uint32_t, 1);
        hf_heap_size_class(h, sn, uc, NULL);
        hf_problem(&h->base, loc, "object of class 0x%" G_GINT64_MODIFIER "x, which the dump "
                   "does not define", (guint64)id);
    }
    cc->id[k] = id;
    cc->idx[k] = (uint32_t)c;
    return c;
}

/* Object o (at loc) classified by reading its record: its class, and its
 * size added to the counts. */
static void classify_read(hf_heap *h, hf_hsnap *sn, class_cache *cc, uint64_t o, uint64_t loc)
{
    hf_hshape sh;
    uint32_t ci;
    uint64_t size;
    if (!h->codec->shape(h, loc, &sh)) {
        /* the scanner only adds objects whose records it could read */
        sh.kind = HF_K_PRIMARRAY, sh.elem = HF_T_BYTE, sh.length = 0;
    }
    switch (sh.kind) {
    case HF_K_INSTANCE:
        ci = (uint32_t)cached_class(h, sn, cc, sh.class_id, loc);
        size = g_array_index(sn->classes, hf_hclass, ci).shallow;
        break;
    case HF_K_OBJARRAY:
        ci = (uint32_t)cached_class(h, sn, cc, sh.class_id, loc);
        size = hf_heap_array_size(h, HF_T_OBJECT, sh.length);
        break;
    case HF_K_PRIMARRAY:
        ci = prim_class(h, sn, sh.elem);
        size = hf_heap_array_size(h, sh.elem, sh.length);
        break;
    default:
        ci = sn->class_class;
        size = hf_heap_class_object_size(h, sn, hf_heap_object_id(h, sn, o));
        break;
    }
    if (h->stated_size)
        h->stated_size(h, loc, &size); /* the dump's own figure, where it has one */
    sn->cls[o] = ci;
    sn->n_kind[sh.kind & 3]++;
    hf_hclass *c = &g_array_index(sn->classes, hf_hclass, ci);
    c->count++;
    c->bytes += size;
    sn->total_bytes += size;
}

/* The object index of sn: every object once, by id (locs, samples, from
 * index.c), each classified (cls) and counted in its class. */
static void finish_objects(hf_heap *h, hf_hsnap *sn)
{
    hf_hkeyset ks;
    uint64_t n = hf_heap_index_objects(h, sn, &ks);
    hf_heap_size_by_gaps(h, sn, ks.key, ks.n); /* before any size is counted */

    /* Keys resolve to their class at their first object, in id order, as
     * the objects read back do: classes made up come in the same order. */
    class_cache *cc = g_new(class_cache, 1);
    memset(cc->idx, 0xff, sizeof cc->idx);
    uint32_t *cls_of = g_new(uint32_t, ks.n + 1); /* by key: class, UINT32_MAX until met */
    memset(cls_of, 0xff, (ks.n + 1) * sizeof *cls_of);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t key = sn->cls[i];
        if (key == HF_HKEY_NONE) {
            classify_read(h, sn, cc, i, hf_heap_loc(sn, i));
        } else if (cls_of[key] != UINT32_MAX) {
            sn->cls[i] = cls_of[key];
        } else {
            const hf_hkey *k = ks.key[key];
            sn->cls[i] = cls_of[key] =
                k->kind == HF_K_PRIMARRAY
                    ? prim_class(h, sn, k->elem)
                    : (uint32_t)cached_class(h, sn, cc, k->class_id, hf_heap_loc(sn, i));
        }
    }
    for (uint32_t key = 0; key < ks.n; key++) {
        const hf_hkey *k = ks.key[key];
        if (cls_of[key] == UINT32_MAX)
            continue; /* only duplicates had it */
        hf_hclass *c = &g_array_index(sn->classes, hf_hclass, cls_of[key]);
        uint64_t bytes = k->kind == HF_K_INSTANCE ? k->count * c->shallow
                                                  : hf_heap_array_bytes(h, k);
        sn->n_kind[k->kind & 3] += k->count;
        c->count += k->count;
        c->bytes += bytes;
        sn->total_bytes += bytes;
    }
    g_free(cc);
    g_free(cls_of);
    g_free(ks.key);
}

static void finish_snap(hf_heap *h, hf_hsnap *sn)
{
    finish_classes(h, sn);
    /* a class java.lang.Class itself, made up or real, has a layout now;
     * classes added while classifying get theirs there */
    finish_objects(h, sn);
    for (guint i = 0; i < sn->classes->len; i++)
        lay_out(h, sn, i, 0);
    name_dirs(h, sn);
    sn->hist = g_new(uint32_t, sn->classes->len + 1);
    sn->n_hist = 0;
    for (guint i = 0; i < sn->classes->len; i++)
        if (g_array_index(sn->classes, hf_hclass, i).count)
            sn->hist[sn->n_hist++] = i;
    g_qsort_with_data(sn->hist, sn->n_hist, sizeof *sn->hist, cmp_hist, sn);
}

static int cmp_root(gconstpointer a, gconstpointer b)
{
    const hf_hroot *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return x->extra < y->extra ? -1 : x->extra > y->extra;
}

/* Thread name from a Thread object's "name" field (a String, or char[] in
 * very old JDKs). */
static const char *thread_object_name(hf_heap *h, const hf_hthread *t)
{
    if (t->snap >= h->snaps->len || !t->obj)
        return NULL;
    const hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, t->snap);
    int64_t o = hf_heap_find_id(h, sn, t->obj);
    hf_hobj ob;
    if (o < 0 || !hf_heap_decode(h, sn, (uint64_t)o, &ob) || ob.kind != HF_K_INSTANCE)
        return NULL;
    hf_hfields it;
    hf_hfields_begin(&it, sn, hf_heap_class(sn, ob.cls));
    bool found = false;
    uint64_t v = 0;
    /* (fields past the object's bytes cannot be read: not walked) */
    while (!found && hf_hfields_next(&it) &&
           (!h->codec->fixed_be || it.offset < (size_t)(ob.end - ob.data)))
        found = it.f->type == HF_T_OBJECT && strcmp(it.f->name, "name") == 0 &&
                hf_heap_field(h, sn, &ob, it.index, &v);
    hf_hfields_end(&it);
    int64_t so = found ? hf_heap_find_id(h, sn, v) : -1;
    hf_hobj sob;
    if (so < 0 || !hf_heap_decode(h, sn, (uint64_t)so, &sob))
        return NULL;
    GString *s = g_string_new(NULL);
    const char *r = NULL;
    if (hf_heap_text(h, sn, &sob, s))
        r = hf_heap_intern(h, s->str, s->len);
    g_string_free(s, TRUE);
    return r;
}

/* A damaged or hostile file can repeat a trace or thread serial: sort by
 * serial and keep the first of each, so directory names stay unique and
 * lookups by number find them. */
static void sort_serials(hf_heap *h, GArray *a, const char *what)
{
    hf_serial_sort(a);
    guint dropped = hf_serial_dedup(a, NULL, NULL);
    if (dropped)
        hf_problem_nooff(&h->base, "%u %ss repeat a serial seen before: only the first is shown",
                         dropped, what);
}

void hf_heap_thread_dir(GString *out, uint32_t serial, const char *name)
{
    g_string_printf(out, "%u", serial);
    if (name && *name) {
        g_string_append_c(out, '-');
        /* keep room for the serial within HF_NAME_MAX */
        size_t n = strlen(name);
        if (n > 160)
            n = 160;
        while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
            n--; /* do not cut a UTF-8 sequence */
        hf_name_escape_append(out, name, n);
    }
}

void hf_heap_finish(hf_heap *h)
{
    hf_heap_decide_rule(h);
    for (guint s = 0; s < h->snaps->len; s++) {
        hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        finish_snap(h, sn);
        g_array_sort(sn->roots, cmp_root);
    }
    h->graphs = hf_heap_graphs_new(h->snaps->len);
    sort_serials(h, h->traces, "stack trace");
    sort_serials(h, h->threads, "thread");
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < h->threads->len; i++) {
        hf_hthread *t = &g_array_index(h->threads, hf_hthread, i);
        if (!t->name)
            t->name = thread_object_name(h, t);
        hf_heap_thread_dir(s, t->serial, t->name);
        t->dir = hf_heap_intern(h, s->str, s->len);
    }
    g_string_free(s, TRUE);
}

uint64_t hf_heap_index_bytes(const hf_heap *h)
{
    uint64_t n = 0;
    for (guint s = 0; s < h->snaps->len; s++) {
        const hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        n += 5 * sn->n_objects + 4 * sn->n_objects + 8 * sn->n_samples;
        n += sn->roots->len * sizeof(hf_hroot) + 4ull * sn->n_hist;
        n += sn->classes->len * sizeof(hf_hclass);
        for (guint c = 0; c < sn->classes->len; c++) {
            const hf_hclass *k = &g_array_index(sn->classes, hf_hclass, c);
            n += k->n_decl * (sizeof(hf_hfield) + 4) /* decl, by_name */ + 4ull * k->n_own_refs +
                 k->n_statics * sizeof(hf_hstatic);
        }
    }
    n += h->frames->len * sizeof(hf_hframe) + h->trace_frames->len * 4ull +
         h->traces->len * sizeof(hf_htrace) + h->threads->len * sizeof(hf_hthread);
    return n;
}

