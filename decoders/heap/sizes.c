/*
 * sizes.c - the size rule: how many bytes the JVM gave an object, which the
 * dump does not state.  Decided once while building (hf_heap_decide_rule),
 * then applied to classes (hf_heap_size_class) and objects.  Every other
 * part of the heap layer asks here; nothing else knows header sizes.
 *
 * Building functions run single-threaded inside open(); the rest only read
 * the finished heap and are thread-safe.
 */
#include "decoders/heap/heap.h"

#include <string.h>

static inline uint64_t align8(uint64_t x)
{
    return (x + 7) & ~UINT64_C(7);
}

void hf_heap_size_rule(const hf_heap *h, GString *out)
{
    if (h->id_size == 4)
        g_string_append(out, "32-bit JVM: instance = align8(8 + fields), array = align8(12 + "
                           "length * element size), references 4 bytes");
    else if (h->compressed)
        g_string_append(out, "64-bit JVM, compressed oops (all ids below 32 GiB): instance = "
                             "align8(12 + fields), array = align8(16 + length * element size), "
                             "references 4 bytes");
    else
        g_string_append(out, "64-bit JVM, uncompressed oops (ids above 32 GiB): instance = "
                             "align8(16 + fields), array = align8(24 + length * element size), "
                             "references 8 bytes");
    g_string_append(out, "; class objects: java.lang.Class's instance size + static fields "
                         "(approximate)");
}

void hf_heap_decide_rule(hf_heap *h)
{
    /* The dump does not say how the JVM laid out objects.  HotSpot uses
     * compressed oops below 32 GiB of heap, and then (by default)
     * compressed class pointers too: header 12 bytes, array header 16.
     * Without them, header 16 and array header 24 (8 mark + 8 klass + 4
     * length, aligned to 8).  A 32-bit JVM: header 8, array header 12. */
    uint64_t max_id = 0;
    for (guint s = 0; s < h->snaps->len; s++) {
        for (int k = 0; k < 2; k++) {
            const hf_hpairs *t = &g_array_index(h->snaps, hf_hsnap, s).tmp[k];
            for (size_t i = 0; i < t->len; i++)
                if (t->v[2 * i] > max_id)
                    max_id = t->v[2 * i];
        }
    }
    if (h->id_size == 4) {
        h->ref_size = 4, h->obj_header = 8, h->arr_header = 12;
    } else if (max_id < (UINT64_C(32) << 30)) {
        h->compressed = true;
        h->ref_size = 4, h->obj_header = 12, h->arr_header = 16;
    } else {
        h->ref_size = 8, h->obj_header = 16, h->arr_header = 24;
    }
}

uint64_t hf_heap_array_size(const hf_heap *h, unsigned elem, uint64_t len)
{
    unsigned es = hf_btype_size(elem, h->ref_size);
    uint64_t base = h->arr_header;
    if (es == 8)
        base = align8(base); /* 8-byte elements start 8-aligned */
    return align8(base + len * es);
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
 * a chain that loops is cut after as many steps as there are classes. */
static uint64_t omitted_chain(const hf_hsnap *sn, const hf_hclass *c)
{
    uint64_t n = 0;
    for (guint steps = 0; c && steps <= sn->classes->len; steps++) {
        n += c->omitted;
        c = c->super >= 0 ? &g_array_index(sn->classes, hf_hclass, c->super) : NULL;
    }
    return n;
}

void hf_heap_size_class(hf_heap *h, hf_hsnap *sn, hf_hclass *c, const hf_hclass *sup)
{
    uint64_t mem = omitted_chain(sn, c);
    for (uint32_t i = 0; i < c->n_fields; i++)
        mem += hf_btype_size(c->fields[i].type, h->ref_size);
    c->vm_extra = vm_extra(h, c) + (sup ? sup->vm_extra : 0);
    c->shallow = align8(h->obj_header + mem + c->vm_extra);
    if (sup && sup->vm_extra >= 256) {
        /* fields of a subclass go after the padded @Contended block */
        uint64_t own = c->omitted;
        for (uint32_t i = 0; i < c->n_decl; i++)
            own += hf_btype_size(c->decl[i].type, h->ref_size);
        c->shallow = align8(sup->shallow + own + (c->vm_extra - sup->vm_extra));
    }
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
        size = align8(size + statics_size(h, hf_heap_class(sn, (uint64_t)self)));
    return size;
}

uint64_t hf_heap_shallow(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob)
{
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
