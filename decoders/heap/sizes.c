/*
 * sizes.c - the size rule: how many bytes the JVM gave an object, which the
 * dump does not state.  Decided once while building (hf_heap_decide_rule),
 * then applied to classes (hf_heap_size_class) and objects.  Every other
 * part of the heap layer asks here; nothing else knows header sizes.
 *
 * Building functions run single-threaded inside open(); the rest only read
 * the finished heap and are thread-safe.
 */
#include "decoders/heap/build.h"
#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"

#include <string.h>

static inline uint64_t align8(uint64_t x)
{
    return (x + 7) & ~UINT64_C(7);
}

/* x rounded up to the object alignment (a power of two, set first thing
 * by hf_heap_decide_rule) */
static inline uint64_t align_obj(const hf_heap *h, uint64_t x)
{
    return (x + h->align - 1) & ~((uint64_t)h->align - 1);
}

/* ---- deciding the rule ---- */

/* The layouts a 64-bit HotSpot can have, by array header (16 with
 * compressed class pointers: 8 mark + 4 class + 4 length; 24 without:
 * 8 + 8 + 4, rounded to 8) and reference size.  The instance header is
 * the array header without the length: 12 or 16. */
typedef struct {
    unsigned arr_header, ref_size;
} layout64;
static const layout64 layouts[] = {{16, 4}, {16, 8}, {24, 4}, {24, 8}};

/* Below this many objects, addresses that are all multiples of 16 (or
 * more) may be chance: the alignment stays 8. */
#define ALIGN_MIN_OBJECTS 32
/* HotSpot's ObjectAlignmentInBytes ranges from 8 to 256. */
#define ALIGN_MAX 256

/* Arrays of evidence kind k whose slack lies in [lo, hi). */
static uint64_t slacks(const hf_hlayout *l, int k, unsigned lo, unsigned hi)
{
    uint64_t n = 0;
    for (unsigned s = lo; s < hi && s <= HF_SLACK_MAX; s++)
        n += l->slack[k][s];
    return n;
}

static int ref_kind(unsigned ref_size)
{
    return ref_size == 4 ? HF_EV_REF4 : HF_EV_REF8;
}

/* Arrays that would overlap the next object under layout x. */
static uint64_t overlaps(const hf_heap *h, layout64 x)
{
    return slacks(&h->layout, HF_EV_PRIM, 0, x.arr_header) +
           slacks(&h->layout, ref_kind(x.ref_size), 0, x.arr_header);
}

/* Arrays that end exactly where the next object starts under layout x
 * (their slack is the header plus less than one alignment step). */
static uint64_t fits(const hf_heap *h, layout64 x)
{
    unsigned hi = x.arr_header + h->align;
    return slacks(&h->layout, HF_EV_PRIM, x.arr_header, hi) +
           slacks(&h->layout, ref_kind(x.ref_size), x.arr_header, hi);
}

static bool noted_any(const hf_hlayout *l)
{
    for (int k = 0; k < HF_EV_N; k++)
        if (slacks(l, k, 0, HF_SLACK_MAX + 1))
            return true;
    return false;
}

/* The largest power of two dividing every object address, within
 * [8, ALIGN_MAX]: HotSpot's ObjectAlignmentInBytes when the ids are
 * addresses (any gap between two objects is a multiple of it). */
static unsigned address_alignment(uint64_t or_ids, uint64_t n_ids)
{
    if (n_ids < ALIGN_MIN_OBJECTS || !or_ids)
        return 8;
    uint64_t low = or_ids & (~or_ids + 1);
    return low < 8 ? 8 : low > ALIGN_MAX ? ALIGN_MAX : (unsigned)low;
}

static void set_layout(hf_heap *h, layout64 x)
{
    h->ref_size = x.ref_size;
    h->arr_header = x.arr_header;
    h->obj_header = x.arr_header == 16 ? 12 : 16;
}

/* Whether layout x (fx arrays fit it) beats the best so far (b, fb; b
 * NULL: none yet).  Ties go to the default's reference size, then to its
 * header. */
static bool better(layout64 x, uint64_t fx, const layout64 *b, uint64_t fb, layout64 dflt)
{
    if (!b || fx != fb)
        return !b || fx > fb;
    bool xr = x.ref_size == dflt.ref_size, br = b->ref_size == dflt.ref_size;
    if (xr != br)
        return xr;
    return x.arr_header == dflt.arr_header && b->arr_header != dflt.arr_header;
}

/* The layout the addresses support best: of the layouts under which no
 * array overlaps the object after it, the one that most arrays fit
 * exactly.  Returns the basis of the decision (the default stays unless
 * it is HF_RULE_ADDRESSES). */
static hf_rule_basis infer_layout(hf_heap *h, layout64 dflt)
{
    if (overlaps(h, layouts[0]))
        return HF_RULE_NOT_ADDRESSES; /* even the smallest layout overlaps */
    const layout64 *best = NULL;
    uint64_t best_fit = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(layouts); i++) {
        uint64_t f = fits(h, layouts[i]);
        if (!overlaps(h, layouts[i]) && better(layouts[i], f, best, best_fit, dflt)) {
            best = &layouts[i];
            best_fit = f;
        }
    }
    if (!best_fit)
        return HF_RULE_NO_FIT;
    set_layout(h, *best);
    return HF_RULE_ADDRESSES;
}

/* The largest id, the OR of all ids and their number, over every
 * snapshot's objects (class objects too: HotSpot's are heap objects). */
static void scan_ids(const hf_heap *h, uint64_t *max_id, uint64_t *or_ids, uint64_t *n_ids)
{
    *max_id = *or_ids = *n_ids = 0;
    for (guint s = 0; s < h->snaps->len; s++) {
        for (int k = 0; k < 2; k++) {
            const hf_hpairs *t = &g_array_index(h->snaps, hf_hsnap, s).tmp[k];
            for (size_t i = 0; i < t->len; i++) {
                uint64_t id = t->v[2 * i];
                *max_id = id > *max_id ? id : *max_id;
                *or_ids |= id;
            }
            *n_ids += t->len;
        }
        const GPtrArray *runs = g_array_index(h->snaps, hf_hsnap, s).runs;
        for (guint r = 0; runs && r < runs->len; r++) {
            const hf_hrun *run = g_ptr_array_index(runs, r);
            *max_id = run->max_id > *max_id ? run->max_id : *max_id;
            *or_ids |= run->or_ids;
            *n_ids += run->len;
        }
    }
}

void hf_heap_decide_rule(hf_heap *h)
{
    /* HotSpot uses compressed oops below 32 GiB of heap, and then (by
     * default) compressed class pointers too: header 12 bytes, array header
     * 16.  Without them, header 16 and array header 24.  That guess from
     * the largest id is the default; for 64-bit ids the addresses decide
     * where they can.  A 32-bit JVM (and Android): header 8, array header
     * 12, whatever the addresses say (they only tell whether ids are
     * addresses at all: the HPROF agent's are serial numbers). */
    uint64_t max_id, or_ids, n_ids;
    scan_ids(h, &max_id, &or_ids, &n_ids);
    h->align = 8;
    h->rule_basis = HF_RULE_DEFAULT;
    if (h->id_size == 4) {
        h->ref_size = 4, h->obj_header = 8, h->arr_header = 12;
        if (slacks(&h->layout, HF_EV_PRIM, 0, 12) + slacks(&h->layout, HF_EV_REF4, 0, 12))
            h->rule_basis = HF_RULE_NOT_ADDRESSES; /* stated; the rule stays */
        return;
    }
    h->compressed = max_id < (UINT64_C(32) << 30);
    layout64 dflt = h->compressed ? layouts[0] : layouts[3];
    set_layout(h, dflt);
    if (!noted_any(&h->layout))
        return;
    h->align = address_alignment(or_ids, n_ids);
    h->rule_basis = (uint8_t)infer_layout(h, dflt);
    if (h->rule_basis != HF_RULE_ADDRESSES)
        h->align = 8; /* addresses that decide nothing decide no alignment either */
}

/* ---- stating the rule ---- */

/* Why this reference size: the other would make an object array overlap
 * the next object, or fewer arrays fit it, or nothing tells them apart. */
static void say_refs(const hf_heap *h, GString *out)
{
    unsigned hdr = h->arr_header, other = h->ref_size == 4 ? 8 : 4;
    uint64_t fx = slacks(&h->layout, ref_kind(h->ref_size), hdr, hdr + h->align);
    uint64_t fo = slacks(&h->layout, ref_kind(other), hdr, hdr + h->align);
    g_string_append_printf(out, "references %u bytes (", h->ref_size);
    if (slacks(&h->layout, ref_kind(other), 0, hdr))
        g_string_append_printf(out, "proven: with %u-byte ones an object array would overlap "
                               "the object after it)", other);
    else if (fx > fo)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT " object arrays end exactly where the "
                               "next object starts, %" G_GUINT64_FORMAT " with %u-byte ones)",
                               (guint64)fx, (guint64)fo, other);
    else
        g_string_append(out, "the default: no object array tells)");
}

/* Why these headers (12 and 16 go with compressed class pointers, 16 and
 * 24 without): the same three reasons. */
static void say_headers(const hf_heap *h, GString *out)
{
    layout64 x = {h->arr_header, h->ref_size};
    layout64 o = {h->arr_header == 16 ? 24 : 16, h->ref_size}; /* the other one */
    uint64_t fx = fits(h, x), fo = fits(h, o);
    g_string_append_printf(out, "headers %u bytes, array headers %u (", h->obj_header,
                           h->arr_header);
    if (overlaps(h, o))
        g_string_append_printf(out, "proven: with %u-byte array headers an array would "
                               "overlap the object after it)", o.arr_header);
    else if (fx > fo)
        g_string_append_printf(out, "%" G_GUINT64_FORMAT " arrays end exactly where the next "
                               "object starts, %" G_GUINT64_FORMAT " with %u-byte headers)",
                               (guint64)fx, (guint64)fo, o.arr_header);
    else
        g_string_append(out, "the default: no array tells)");
}

static void say_formula(const hf_heap *h, GString *out)
{
    g_string_append_printf(out, "instance = align%u(%u + fields), array = align%u(%u + length * "
                           "element size)", h->align, h->obj_header, h->align, h->arr_header);
}

void hf_heap_size_rule(const hf_heap *h, GString *out)
{
    static const char *const unproven[] = {
        [HF_RULE_DEFAULT] = "the dump has no arrays to measure",
        [HF_RULE_NO_FIT] = "no array ends where the next object starts",
        [HF_RULE_NOT_ADDRESSES] = "the ids are not addresses",
    };
    if (h->id_size == 4) {
        g_string_append(out, "32-bit JVM or Android (4-byte ids");
        if (h->rule_basis == HF_RULE_NOT_ADDRESSES)
            g_string_append(out, "; they are not addresses, as in the HPROF agent's dumps");
        g_string_append(out, "): ");
        say_formula(h, out);
        g_string_append(out, ", references 4 bytes");
    } else if (h->rule_basis == HF_RULE_ADDRESSES) {
        g_string_append(out, "64-bit JVM, layout from the object addresses: ");
        say_refs(h, out);
        g_string_append(out, ", ");
        say_headers(h, out);
        if (h->align > 8)
            g_string_append_printf(out, ", alignment %u (every object address is a multiple "
                                   "of %u): ", h->align, h->align);
        else
            g_string_append(out, ", alignment 8 (the least; no more is proven): ");
        say_formula(h, out);
    } else {
        g_string_append_printf(out, "64-bit JVM, %s by default (%s; %s 32 GiB): ",
                               h->compressed ? "compressed oops" : "uncompressed oops",
                               unproven[h->rule_basis],
                               h->compressed ? "all ids below" : "ids above");
        say_formula(h, out);
        g_string_append_printf(out, ", references %u bytes", h->ref_size);
    }
    g_string_append(out, "; class objects: java.lang.Class's instance size + static fields "
                         "(approximate)");
}

uint64_t hf_heap_array_size(const hf_heap *h, unsigned elem, uint64_t len)
{
    unsigned es = hf_btype_size(elem, h->ref_size);
    uint64_t base = h->arr_header;
    if (es == 8)
        base = align8(base); /* 8-byte elements start 8-aligned */
    return align_obj(h, base + len * es);
}

/* align(base + len * es) = base + len * es + pad, where pad depends only on
 * len mod (align / gcd(align, es)), which divides 256. */
G_STATIC_ASSERT(ALIGN_MAX <= 256);

uint64_t hf_heap_array_bytes(const hf_heap *h, const hf_hkey *k)
{
    unsigned elem = k->kind == HF_K_OBJARRAY ? HF_T_OBJECT : k->elem;
    unsigned es = hf_btype_size(elem, h->ref_size);
    uint64_t base = h->arr_header;
    if (es == 8)
        base = align8(base);
    uint64_t n = k->count * base + k->sum_len * es;
    for (unsigned r = 0; k->by_len && r < 256; r++)
        if (k->by_len[r])
            n += k->by_len[r] * ((0 - (base + (uint64_t)r * es)) & ((uint64_t)h->align - 1));
    return n;
}

/* Bytes HotSpot adds to instances of class c itself beyond its declared
 * fields (JDK 11-17): fields the VM injects, which no dump lists, and the
 * @Contended padding around Thread's ThreadLocalRandom fields (2 x 128).
 * Without them the histogram of these few classes would be short. */
static uint32_t vm_extra(const hf_heap *h, const hf_hclass *c)
{
    static const struct { const char *name; unsigned words, refs; } injected[] = {
        {"java.lang.ClassLoader", 1, 0},                 /* loader_data */
        {"java.lang.Module", 1, 0},                      /* module_entry */
        {"java.lang.invoke.MemberName", 1, 0},           /* vmindex */
        {"java.lang.invoke.ResolvedMethodName", 1, 1},   /* vmtarget, vmholder */
        {"java.lang.invoke.MethodHandleNatives$CallSiteContext", 2, 0},
    };
    unsigned word = h->id_size;
    for (size_t i = 0; i < G_N_ELEMENTS(injected); i++)
        if (strcmp(c->name, injected[i].name) == 0)
            return injected[i].words * word + injected[i].refs * h->ref_size;
    if (strcmp(c->name, "java.lang.Thread") == 0)
        for (uint32_t i = 0; i < c->n_decl; i++)
            if (strcmp(c->decl[i].name, "threadLocalRandomSeed") == 0)
                return 256;
    return 0;
}

/* Field bytes the dump left out (hf_hclass.omitted) of c and its supers;
 * a chain that loops, or is deeper than any laid out, is cut there. */
static uint64_t omitted_chain(const hf_hsnap *sn, const hf_hclass *c)
{
    uint64_t n = 0;
    for (guint steps = 0; c && steps <= HF_HCHAIN_MAX; steps++) {
        n += c->omitted;
        c = c->super >= 0 ? &g_array_index(sn->classes, hf_hclass, c->super) : NULL;
    }
    return n;
}

/* The rule's instance size of c (fields laid out; sup its super), and in
 * *extra the bytes the VM adds. */
static uint64_t rule_size(const hf_heap *h, const hf_hsnap *sn, const hf_hclass *c,
                          const hf_hclass *sup, uint32_t *extra)
{
    /* the chain's fields, references ref_size wide (data_size has them
     * id_size wide) */
    uint64_t mem = omitted_chain(sn, c) + c->data_size +
                   (uint64_t)c->n_refs * h->ref_size - (uint64_t)c->n_refs * h->id_size;
    *extra = vm_extra(h, c) + (sup ? sup->vm_extra : 0);
    if (sup && sup->vm_extra >= 256) {
        /* fields of a subclass go after the padded @Contended block */
        uint64_t own = c->omitted;
        for (uint32_t i = 0; i < c->n_decl; i++)
            own += hf_btype_size(c->decl[i].type, h->ref_size);
        return align_obj(h, sup->shallow + own + (*extra - sup->vm_extra));
    }
    return align_obj(h, h->obj_header + mem + *extra);
}

void hf_heap_size_class(hf_heap *h, hf_hsnap *sn, hf_hclass *c, const hf_hclass *sup)
{
    c->shallow = rule_size(h, sn, c, sup, &c->vm_extra);
}

/* ---- sizes the addresses prove ---- */

/* Instances that must lie at one distance from the next object before
 * that distance is taken for a size larger than the rule's. */
#define GAP_PROOF 3

static bool addresses_size(const hf_heap *h)
{
    return h->id_size == 8 && h->rule_basis == HF_RULE_ADDRESSES;
}

/* Whether class c of sn has an instance size of its own: not
 * java.lang.Class (class objects are sized apart), not an array class. */
static bool instance_class(const hf_hsnap *sn, guint c)
{
    const hf_hclass *k = &g_array_index(sn->classes, hf_hclass, c);
    return c != sn->class_class && !k->elem && k->own_refs;
}

void hf_heap_size_by_gaps(hf_heap *h, hf_hsnap *sn, hf_hkey *const *keys, uint32_t n)
{
    if (!addresses_size(h))
        return;
    /* one class can have a key in each scanning thread's table: merge */
    guint nc = sn->classes->len;
    hf_hkey *by = g_new0(hf_hkey, nc ? nc : 1);
    for (uint32_t i = 0; i < n; i++) {
        const hf_hkey *k = keys[i];
        int64_t c = k->kind == HF_K_INSTANCE && k->gap_n ? hf_heap_class_by_id(sn, k->class_id) : -1;
        if (c < 0)
            continue;
        hf_hkey *m = &by[c];
        m->gap_all += k->gap_all;
        if (!m->gap_n || k->gap < m->gap)
            m->gap = k->gap, m->gap_n = k->gap_n;
        else if (k->gap == m->gap)
            m->gap_n += k->gap_n;
    }
    for (guint c = 0; c < nc; c++) {
        hf_hclass *k = &g_array_index(sn->classes, hf_hclass, c);
        uint64_t gap = by[c].gap;
        if (!by[c].gap_n || !instance_class(sn, c) || gap % h->align || gap < h->obj_header ||
            gap == k->shallow)
            continue;
        /* smaller: proven, objects do not overlap; larger: when most
         * instances lie at that one distance */
        if (gap < k->shallow ||
            (by[c].gap_n >= GAP_PROOF && 2 * by[c].gap_n >= by[c].gap_all))
            k->shallow = gap;
    }
    g_free(by);
}

uint64_t hf_heap_rule_size(const hf_heap *h, const hf_hsnap *sn, const hf_hclass *c)
{
    const hf_hclass *sup = c->super >= 0 ? &g_array_index(sn->classes, hf_hclass, c->super) : NULL;
    uint32_t extra;
    return rule_size(h, sn, c, sup, &extra);
}

uint64_t hf_heap_n_sized_by_gaps(const hf_heap *h)
{
    uint64_t n = 0;
    for (guint s = 0; addresses_size(h) && s < h->snaps->len; s++) {
        const hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        for (guint c = 0; c < sn->classes->len; c++) {
            const hf_hclass *k = &g_array_index(sn->classes, hf_hclass, c);
            n += instance_class(sn, c) && hf_heap_rule_size(h, sn, k) != k->shallow;
        }
    }
    return n;
}

static uint64_t statics_size(const hf_heap *h, const hf_hclass *c)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->n_statics; i++)
        n += hf_btype_size(c->statics[i].type, h->ref_size);
    return n;
}

uint64_t hf_heap_class_object_size(const hf_heap *h, const hf_hsnap *sn, uint64_t class_id)
{
    int64_t self = hf_heap_class_by_id(sn, class_id);
    uint64_t size = hf_heap_class(sn, sn->class_class)->shallow;
    if (self >= 0)
        size = align_obj(h, size + statics_size(h, hf_heap_class(sn, (uint64_t)self)));
    return size;
}

uint64_t hf_heap_shallow(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob)
{
    uint64_t stated;
    if (h->stated_size && h->stated_size(h, ob->loc, &stated))
        return stated;
    switch (ob->kind) {
    case HF_K_INSTANCE:
        return hf_heap_class(sn, ob->cls)->shallow;
    case HF_K_OBJARRAY:
        return hf_heap_array_size(h, HF_T_OBJECT, ob->length);
    case HF_K_PRIMARRAY:
        return hf_heap_array_size(h, ob->elem, ob->length);
    default:
        return hf_heap_class_object_size(h, sn, ob->id);
    }
}
