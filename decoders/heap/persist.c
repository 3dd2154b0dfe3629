/*
 * persist.c - see persist.h: an hf_heap to index file sections and back.
 * Every value read back that is used as an index or a length is checked
 * here against what it indexes.
 */
#include "decoders/heap/persist.h"
#include "decoders/heap/build.h"
#include "decoders/heap/fields.h"
#include "decoders/heap/retained.h"

#include <string.h>

/* ---- saving ---- */

static void save_field(GByteArray *b, const hf_hfield *f)
{
    hf_keepb_str(b, f->name);
    hf_keepb_u32(b, f->decl);
    hf_keepb_u32(b, f->offset);
    hf_keepb_u8(b, f->type);
}

static void save_class(GByteArray *b, const hf_hclass *c)
{
    hf_keepb_u64(b, c->id);
    hf_keepb_str(b, c->name);
    hf_keepb_str(b, c->dir);
    hf_keepb_u64(b, (uint64_t)c->super);
    hf_keepb_u64(b, c->super_id);
    hf_keepb_u64(b, c->loader_id);
    hf_keepb_u32(b, c->trace);
    hf_keepb_u32(b, c->inst_size);
    hf_keepb_u8(b, c->elem);
    hf_keepb_u8(b, c->synthetic);
    hf_keepb_u32(b, c->n_decl);
    for (uint32_t i = 0; i < c->n_decl; i++)
        save_field(b, &c->decl[i]);
    hf_keepb_u32(b, c->n_fields);
    hf_keepb_u32(b, c->n_refs);
    hf_keepb_u32(b, c->data_size);
    hf_keepb_u32(b, c->n_statics);
    for (uint32_t i = 0; i < c->n_statics; i++) {
        hf_keepb_str(b, c->statics[i].name);
        hf_keepb_u64(b, c->statics[i].value);
        hf_keepb_u8(b, c->statics[i].type);
    }
    hf_keepb_u32(b, c->vm_extra);
    hf_keepb_u32(b, c->omitted);
    hf_keepb_u64(b, c->shallow);
    hf_keepb_u64(b, c->count);
    hf_keepb_u64(b, c->bytes);
}

static void save_snap(GByteArray *b, const hf_hsnap *sn)
{
    hf_keepb_u64(b, sn->number);
    hf_keepb_u64(b, sn->n_objects);
    hf_keepb_u64(b, sn->n_samples);
    for (int k = 0; k < 4; k++)
        hf_keepb_u64(b, sn->n_kind[k]);
    hf_keepb_u64(b, sn->total_bytes);
    for (int t = 0; t < HF_T_MAX; t++)
        hf_keepb_u32(b, sn->prim_class[t]);
    hf_keepb_u32(b, sn->class_class);
    hf_keepb_u32(b, sn->string_class);
    hf_keepb_u32(b, (uint32_t)sn->str_value);
    hf_keepb_u32(b, (uint32_t)sn->str_coder);
    hf_keepb_u32(b, (uint32_t)sn->str_offset);
    hf_keepb_u32(b, (uint32_t)sn->str_count);
    hf_keepb_u32(b, sn->classes->len);
    for (guint i = 0; i < sn->classes->len; i++)
        save_class(b, &g_array_index(sn->classes, hf_hclass, i));
    hf_keepb_u32(b, sn->n_hist);
    hf_keepb_bytes(b, sn->hist, 4ull * sn->n_hist);
    hf_keepb_u32(b, sn->roots->len);
    for (guint i = 0; i < sn->roots->len; i++) {
        const hf_hroot *r = &g_array_index(sn->roots, hf_hroot, i);
        hf_keepb_u64(b, r->id);
        hf_keepb_u64(b, r->extra);
        hf_keepb_u32(b, r->thread);
        hf_keepb_u32(b, r->frame);
        hf_keepb_u8(b, r->kind);
    }
    hf_keepb_u32(b, sn->heap_names->len);
    for (guint i = 0; i < sn->heap_names->len; i++)
        hf_keepb_str(b, g_ptr_array_index(sn->heap_names, i));
    hf_keepb_u32(b, sn->heap_switch->len);
    for (guint i = 0; i < sn->heap_switch->len; i++) {
        const hf_hswitch *w = &g_array_index(sn->heap_switch, hf_hswitch, i);
        hf_keepb_u64(b, w->loc);
        hf_keepb_u32(b, w->heap);
    }
}

void hf_heap_save(const hf_heap *h, hf_keepw *w)
{
    GByteArray *b = g_byte_array_new();
    const hf_dump *d = &h->base;
    hf_keepb_u32(b, h->id_size);
    hf_keepb_u32(b, h->ref_size);
    hf_keepb_u32(b, h->obj_header);
    hf_keepb_u32(b, h->arr_header);
    hf_keepb_u32(b, h->align);
    hf_keepb_u8(b, h->compressed);
    hf_keepb_u8(b, h->rule_basis);
    hf_keepb_bytes(b, &h->layout, sizeof h->layout);
    hf_keepb_u64(b, d->n_problems);
    hf_keepb_u32(b, d->problems->len);
    for (guint i = 0; i < d->problems->len; i++)
        hf_keepb_str(b, g_ptr_array_index(d->problems, i));
    hf_keepb_u32(b, h->frames->len);
    for (guint i = 0; i < h->frames->len; i++) {
        const hf_hframe *f = &g_array_index(h->frames, hf_hframe, i);
        hf_keepb_str(b, f->cls);
        hf_keepb_str(b, f->method);
        hf_keepb_str(b, f->sig);
        hf_keepb_str(b, f->source);
        hf_keepb_u32(b, (uint32_t)f->line);
    }
    hf_keepb_u32(b, h->trace_frames->len);
    hf_keepb_bytes(b, h->trace_frames->data, 4ull * h->trace_frames->len);
    hf_keepb_u32(b, h->traces->len);
    for (guint i = 0; i < h->traces->len; i++) {
        const hf_htrace *t = &g_array_index(h->traces, hf_htrace, i);
        hf_keepb_u32(b, t->serial);
        hf_keepb_u32(b, t->thread);
        hf_keepb_u32(b, t->first);
        hf_keepb_u32(b, t->n);
    }
    hf_keepb_u32(b, h->threads->len);
    for (guint i = 0; i < h->threads->len; i++) {
        const hf_hthread *t = &g_array_index(h->threads, hf_hthread, i);
        hf_keepb_u32(b, t->serial);
        hf_keepb_u32(b, t->trace);
        hf_keepb_u64(b, t->obj);
        hf_keepb_str(b, t->name);
        hf_keepb_str(b, t->group);
        hf_keepb_str(b, t->parent);
        hf_keepb_str(b, t->dir);
        hf_keepb_u32(b, t->snap);
    }
    hf_keepb_u32(b, h->snaps->len);
    for (guint s = 0; s < h->snaps->len; s++) {
        const hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        save_snap(b, sn);
        hf_keepw_add_array(w, HF_KEEP_SNAP + 4 * s, sn->locs, 5 * sn->n_objects);
        hf_keepw_add_array(w, HF_KEEP_SNAP + 4 * s + 1, sn->cls, 4 * sn->n_objects);
        hf_keepw_add_array(w, HF_KEEP_SNAP + 4 * s + 2, sn->samples, 8 * sn->n_samples);
    }
    hf_keepw_add_bytes(w, HF_KEEP_HEAP, b);
}

/* ---- loading ---- */

/* A string of the section, interned; NULL stays NULL. */
static const char *load_str(hf_heap *h, hf_keepcur *c)
{
    uint32_t len;
    const char *s = hf_keepcur_str(c, &len);
    return s ? hf_heap_intern(h, s, len) : NULL;
}

/* The same, never NULL (names that the views print). */
static const char *load_name(hf_heap *h, hf_keepcur *c)
{
    const char *s = load_str(h, c);
    if (!s)
        c->ok = false;
    return s ? s : "";
}

/* A count of items of at least `min` bytes each: no more than the bytes
 * left could hold, so a damaged count cannot make us allocate the moon. */
static uint32_t load_count(hf_keepcur *c, size_t min)
{
    uint32_t n = hf_keepcur_u32(c);
    if (c->ok && (uint64_t)n * min > (uint64_t)(c->end - c->p)) {
        c->ok = false;
        return 0;
    }
    return c->ok ? n : 0;
}

static void load_field(hf_heap *h, hf_keepcur *c, hf_hfield *f)
{
    f->name = load_name(h, c);
    f->decl = hf_keepcur_u32(c);
    f->offset = hf_keepcur_u32(c);
    f->type = hf_keepcur_u8(c);
}

static bool load_class(hf_heap *h, hf_keepcur *c, hf_hclass *k)
{
    k->id = hf_keepcur_u64(c);
    k->name = load_name(h, c);
    k->dir = load_name(h, c);
    k->super = (int64_t)hf_keepcur_u64(c);
    k->super_id = hf_keepcur_u64(c);
    k->loader_id = hf_keepcur_u64(c);
    k->trace = hf_keepcur_u32(c);
    k->inst_size = hf_keepcur_u32(c);
    k->elem = hf_keepcur_u8(c);
    k->synthetic = hf_keepcur_u8(c) != 0;
    k->n_decl = load_count(c, 13);
    k->decl = k->n_decl ? g_new0(hf_hfield, k->n_decl) : NULL;
    for (uint32_t i = 0; i < k->n_decl; i++)
        load_field(h, c, &k->decl[i]);
    hf_hclass_index_names(k);
    k->own_refs = g_new0(uint32_t, k->n_decl + 1);
    for (uint32_t i = 0; i < k->n_decl; i++)
        if (k->decl[i].type == HF_T_OBJECT)
            k->own_refs[k->n_own_refs++] = k->decl[i].offset;
    k->n_fields = hf_keepcur_u32(c);
    k->n_refs = hf_keepcur_u32(c);
    k->data_size = hf_keepcur_u32(c);
    k->n_statics = load_count(c, 13);
    k->statics = k->n_statics ? g_new0(hf_hstatic, k->n_statics) : NULL;
    for (uint32_t i = 0; i < k->n_statics; i++) {
        k->statics[i].name = load_name(h, c);
        k->statics[i].value = hf_keepcur_u64(c);
        k->statics[i].type = hf_keepcur_u8(c);
    }
    k->vm_extra = hf_keepcur_u32(c);
    k->omitted = hf_keepcur_u32(c);
    k->shallow = hf_keepcur_u64(c);
    k->count = hf_keepcur_u64(c);
    k->bytes = hf_keepcur_u64(c);
    if (k->elem >= HF_T_MAX || k->data_size > INT32_MAX || k->n_fields > HF_HFIELDS_MAX ||
        k->n_fields < k->n_decl || k->n_refs < k->n_own_refs)
        return false;
    for (uint32_t i = 0; i < k->n_decl; i++)
        if (k->decl[i].type >= HF_T_MAX || k->decl[i].offset > k->data_size)
            return false;
    return c->ok;
}

/* Class indices a class, its fields and the snapshot name are in range. */
static bool check_snap(const hf_hsnap *sn)
{
    uint32_t n = sn->classes->len;
    for (uint32_t i = 0; i < n; i++) {
        const hf_hclass *k = &g_array_index(sn->classes, hf_hclass, i);
        if (k->super != -1 && (k->super < 0 || k->super >= n))
            return false;
        for (uint32_t f = 0; f < k->n_decl; f++)
            if (k->decl[f].decl >= n)
                return false;
        /* the chain's totals are the class's own and, unless the chain
         * was cut there, its super's */
        const hf_hclass *sup = k->super >= 0 ? &g_array_index(sn->classes, hf_hclass, k->super)
                                             : NULL;
        if (k->n_fields > k->n_decl &&
            (!sup || sup->n_fields != k->n_fields - k->n_decl ||
             sup->n_refs != k->n_refs - k->n_own_refs || sup->data_size > k->data_size))
            return false;
    }
    for (uint32_t i = 0; i < sn->n_hist; i++)
        if (sn->hist[i] >= n)
            return false;
    for (int t = 0; t < HF_T_MAX; t++)
        if (sn->prim_class[t] != UINT32_MAX && sn->prim_class[t] >= n)
            return false;
    if (sn->class_class >= n || (sn->string_class != UINT32_MAX && sn->string_class >= n))
        return false;
    int32_t fs[] = {sn->str_value, sn->str_coder, sn->str_offset, sn->str_count};
    uint32_t nf = sn->string_class != UINT32_MAX
                      ? g_array_index(sn->classes, hf_hclass, sn->string_class).n_fields : 0;
    for (int k = 0; k < 4; k++)
        if (fs[k] < -1 || (fs[k] >= 0 && (uint32_t)fs[k] >= nf))
            return false;
    for (guint i = 0; i < sn->roots->len; i++)
        if (g_array_index(sn->roots, hf_hroot, i).kind >= HF_ROOT_NKINDS)
            return false;
    return true;
}

/* The object arrays of snapshot s, in place. */
static bool map_arrays(const hf_keepr *r, uint32_t s, hf_hsnap *sn)
{
    uint64_t n = sn->n_objects, len[3];
    const uint8_t *p[3];
    for (int k = 0; k < 3; k++)
        p[k] = hf_keepr_section(r, HF_KEEP_SNAP + 4 * s + (uint32_t)k, &len[k]);
    if (n >= (1ull << 32) || sn->n_samples != (n + HF_SAMPLE - 1) / HF_SAMPLE ||
        !p[0] || !p[1] || !p[2] || len[0] != 5 * n || len[1] != 4 * n ||
        len[2] != 8 * sn->n_samples || (n && !sn->classes->len))
        return false;
    /* an empty section may lie at the end of the file: never NULL */
    sn->locs = (uint8_t *)p[0];
    sn->cls = (uint32_t *)(void *)p[1];
    sn->samples = (uint64_t *)(void *)p[2];
    return true;
}

static bool load_snap(hf_heap *h, const hf_keepr *r, hf_keepcur *c, uint32_t s)
{
    hf_hsnap *sn = hf_heap_add_snap(h);
    sn->number = hf_keepcur_u64(c);
    sn->n_objects = hf_keepcur_u64(c);
    sn->n_samples = hf_keepcur_u64(c);
    for (int k = 0; k < 4; k++)
        sn->n_kind[k] = hf_keepcur_u64(c);
    sn->total_bytes = hf_keepcur_u64(c);
    for (int t = 0; t < HF_T_MAX; t++)
        sn->prim_class[t] = hf_keepcur_u32(c);
    sn->class_class = hf_keepcur_u32(c);
    sn->string_class = hf_keepcur_u32(c);
    sn->str_value = (int32_t)hf_keepcur_u32(c);
    sn->str_coder = (int32_t)hf_keepcur_u32(c);
    sn->str_offset = (int32_t)hf_keepcur_u32(c);
    sn->str_count = (int32_t)hf_keepcur_u32(c);
    uint32_t nc = load_count(c, 60);
    for (uint32_t i = 0; i < nc && c->ok; i++) {
        hf_hclass k = {0};
        bool ok = load_class(h, c, &k);
        g_array_append_val(sn->classes, k); /* freed with the snapshot either way */
        if (!ok)
            return false;
        if (k.id && !g_hash_table_contains(sn->class_by_id, GSIZE_TO_POINTER(k.id)))
            g_hash_table_insert(sn->class_by_id, GSIZE_TO_POINTER(k.id), GSIZE_TO_POINTER(i + 1));
        if (g_hash_table_contains(sn->class_by_dir, k.dir))
            return false; /* directory names are unique */
        g_hash_table_insert(sn->class_by_dir, (gpointer)k.dir, GSIZE_TO_POINTER(i + 1));
    }
    sn->n_hist = load_count(c, 4);
    sn->hist = g_new(uint32_t, sn->n_hist + 1);
    for (uint32_t i = 0; i < sn->n_hist; i++)
        sn->hist[i] = hf_keepcur_u32(c);
    uint32_t nr = load_count(c, 25);
    for (uint32_t i = 0; i < nr; i++) {
        hf_hroot rt = {0};
        rt.id = hf_keepcur_u64(c);
        rt.extra = hf_keepcur_u64(c);
        rt.thread = hf_keepcur_u32(c);
        rt.frame = hf_keepcur_u32(c);
        rt.kind = hf_keepcur_u8(c);
        g_array_append_val(sn->roots, rt);
    }
    uint32_t nh = load_count(c, 4);
    for (uint32_t i = 0; i < nh; i++)
        g_ptr_array_add(sn->heap_names, (gpointer)load_name(h, c));
    uint32_t nw = load_count(c, 12);
    for (uint32_t i = 0; i < nw; i++) {
        hf_hswitch w = {0};
        w.loc = hf_keepcur_u64(c);
        w.heap = hf_keepcur_u32(c);
        g_array_append_val(sn->heap_switch, w);
    }
    return c->ok && check_snap(sn) && map_arrays(r, s, sn);
}

bool hf_heap_load(hf_heap *h, const hf_keepr *r)
{
    hf_keepcur c = hf_keepcur_of(r, HF_KEEP_HEAP);
    hf_dump *d = &h->base;
    if (hf_keepcur_u32(&c) != h->id_size)
        return false;
    h->ref_size = hf_keepcur_u32(&c);
    h->obj_header = hf_keepcur_u32(&c);
    h->arr_header = hf_keepcur_u32(&c);
    h->align = hf_keepcur_u32(&c);
    h->compressed = hf_keepcur_u8(&c) != 0;
    h->rule_basis = hf_keepcur_u8(&c);
    const void *lay = hf_keepcur_bytes(&c, sizeof h->layout);
    if (lay)
        memcpy(&h->layout, lay, sizeof h->layout);
    d->n_problems = hf_keepcur_u64(&c);
    uint32_t np = load_count(&c, 4);
    for (uint32_t i = 0; i < np; i++) {
        uint32_t len;
        const char *s = hf_keepcur_str(&c, &len);
        g_ptr_array_add(d->problems, s ? g_strndup(s, len) : g_strdup(""));
    }
    uint32_t nf = load_count(&c, 20);
    for (uint32_t i = 0; i < nf; i++) {
        hf_hframe f = {0};
        f.cls = load_str(h, &c);
        f.method = load_str(h, &c);
        f.sig = load_str(h, &c);
        f.source = load_str(h, &c);
        f.line = (int32_t)hf_keepcur_u32(&c);
        g_array_append_val(h->frames, f);
    }
    uint32_t ntf = load_count(&c, 4);
    for (uint32_t i = 0; i < ntf; i++) {
        uint32_t fi = hf_keepcur_u32(&c);
        if (fi != UINT32_MAX && fi >= nf)
            return false;
        g_array_append_val(h->trace_frames, fi);
    }
    uint32_t nt = load_count(&c, 16);
    for (uint32_t i = 0; i < nt; i++) {
        hf_htrace t = {0};
        t.serial = hf_keepcur_u32(&c);
        t.thread = hf_keepcur_u32(&c);
        t.first = hf_keepcur_u32(&c);
        t.n = hf_keepcur_u32(&c);
        if (t.first > ntf || t.n > ntf - t.first)
            return false;
        g_array_append_val(h->traces, t);
    }
    uint32_t nth = load_count(&c, 36);
    for (uint32_t i = 0; i < nth; i++) {
        hf_hthread t = {0};
        t.serial = hf_keepcur_u32(&c);
        t.trace = hf_keepcur_u32(&c);
        t.obj = hf_keepcur_u64(&c);
        t.name = load_str(h, &c);
        t.group = load_str(h, &c);
        t.parent = load_str(h, &c);
        t.dir = load_name(h, &c);
        t.snap = hf_keepcur_u32(&c);
        g_array_append_val(h->threads, t);
    }
    uint32_t ns = load_count(&c, 100);
    for (uint32_t s = 0; s < ns; s++)
        if (!load_snap(h, r, &c, s))
            return false;
    for (uint32_t i = 0; i < nth; i++)
        if (g_array_index(h->threads, hf_hthread, i).snap >= (ns ? ns : 1))
            return false;
    if (!c.ok || c.p != c.end || h->rule_basis > HF_RULE_NOT_ADDRESSES || !h->align)
        return false;
    h->graphs = hf_heap_graphs_new(h->snaps->len);
    return true;
}

void hf_heap_unmap(hf_heap *h)
{
    for (guint s = 0; h->snaps && s < h->snaps->len; s++) {
        hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        sn->locs = NULL;
        sn->cls = NULL;
        sn->samples = NULL;
    }
}
