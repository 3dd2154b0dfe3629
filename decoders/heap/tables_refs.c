/*
 * tables_refs.c - tables/references.tsv of a heap snapshot and
 * classes/NAME/table.tsv (tables.h).
 *
 * references.tsv holds what the refs/ directories hold: one row per
 * non-null reference, named as refs/ names it, to the id it holds (whether
 * or not the snapshot has that object).  Where a format reads references
 * its own way (HPROF text: refs/ from the record's lines), the rows come
 * from its refs/ entries; for the others they are read straight from the
 * decoded object, which is the same thing, once per object instead of once
 * per slot.
 */
#include "decoders/heap/tables.h"

#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"

#include "decoders/core/tsv.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))

/* Slots per item of references.tsv: an object array of millions of
 * elements is many items, so a read near its end renders only the end. */
#define BLOCK_BITS 8

/* The refs/ directory's entry function of d's format, NULL when none. */
static hf_ref_status (*refs_entry(hf_dump *d))(hf_dump *, uint32_t, uint64_t, uint32_t,
                                                 char *, hf_target *)
{
    for (const hf_linkdir *l = d->ops->object.dirs; l && l->name; l++)
        if (strcmp(l->name, "refs") == 0)
            return l->entry;
    return NULL;
}

/* How many refs/ slots object ob has. */
static uint64_t n_slots(const hf_hsnap *sn, const hf_hobj *ob)
{
    switch (ob->kind) {
    case HF_K_INSTANCE:
        return hf_heap_class(sn, ob->cls)->n_fields;
    case HF_K_OBJARRAY:
        return ob->length;
    case HF_K_CLASS: {
        const hf_hclass *c = hf_heap_described(sn, ob);
        return c ? c->n_statics : 0;
    }
    default:
        return 0;
    }
}

static void ref_row(hf_tsv *t, uint64_t from, const char *name, uint64_t slot, uint64_t to)
{
    hf_tsv_put_id(t, from);
    hf_tsv_c(t, '\t');
    if (name)
        hf_tsv_put_str(t, name);
    else
        hf_tsv_put_u64(t, slot);
    hf_tsv_c(t, '\t');
    hf_tsv_put_id(t, to);
    hf_tsv_c(t, '\n');
}

/* Reference field i of instance ob: hf_heap_field, read in place where
 * values are fixed width (HPROF), without a call per field. */
static bool ref_field(hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint32_t offset,
                      uint32_t i, uint64_t *v)
{
    if (!h->codec->fixed_be || !ob->data)
        return hf_heap_field(h, sn, ob, i, v);
    const uint8_t *p = ob->data + offset;
    if (p >= ob->end || (size_t)(ob->end - p) < h->id_size)
        return false;
    uint64_t x = 0;
    for (unsigned k = 0; k < h->id_size; k++)
        x = x << 8 | p[k];
    *v = x;
    return true;
}

/* Rows of slots [a, b) of object o (decoded: ob), read straight from it. */
static void direct_refs(hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint64_t a,
                        uint64_t b, hf_tsv *t)
{
    uint64_t v;
    if (ob->kind == HF_K_INSTANCE) {
        hf_hfields it;
        hf_hfields_begin(&it, sn, hf_heap_class(sn, ob->cls));
        hf_hfields_seek(&it, (uint32_t)MIN(a, (uint64_t)UINT32_MAX));
        while (hf_hfields_next(&it) && it.index < b)
            if (it.f->type == HF_T_OBJECT && ref_field(h, sn, ob, it.offset, it.index, &v) && v)
                ref_row(t, ob->id, hf_hfields_refname(&it), it.index, v);
        hf_hfields_end(&it);
        return;
    }
    for (uint64_t i = a; i < b; i++)
        if ((v = hf_heap_element(h, ob, i)))
            ref_row(t, ob->id, NULL, i, v);
}

/* Rows of slots [a, b) of object o through the format's refs/ entries. */
static void entry_refs(hf_dump *d, uint32_t s, uint64_t o, uint64_t id, uint64_t a, uint64_t b,
                       hf_tsv *t)
{
    hf_ref_status (*entry)(hf_dump *, uint32_t, uint64_t, uint32_t, char *, hf_target *) =
        refs_entry(d);
    char name[HF_NAME_MAX];
    hf_target to;
    for (uint64_t i = a; entry && i < b && i <= UINT32_MAX; i++) {
        hf_ref_status st = entry(d, s, o, (uint32_t)i, name, &to);
        if (st == HF_REF_END)
            return;
        if (st == HF_REF_OK && to.kind == HF_TO_OBJECT)
            ref_row(t, id, name, i, g_ascii_strtoull(to.name + 2, NULL, 16));
    }
}

static const char *const ref_cols[] = {"from_id", "field", "to_id"};

static uint64_t references_rows(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                                size_t budget)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, v->snap);
    if (!sn)
        return HF_DONE;
    uint64_t start = hf_tsv_pos(t);
    if (first == 0)
        hf_tsv_put_header(t, ref_cols, G_N_ELEMENTS(ref_cols));
    bool direct = refs_entry(d) == hf_heap_refs_entry;
    uint64_t item = first ? first - 1 : 0;
    uint64_t blk = item & ((UINT64_C(1) << HF_HEAP_REFS_SHIFT) - 1);
    for (uint64_t o = item >> HF_HEAP_REFS_SHIFT; o < sn->n_objects; o++, blk = 0) {
        hf_hobj ob;
        /* checked at every object, so a stop between objects is met even
         * where they have no references */
        if (hf_tsv_stop(t, start, budget, 1 + (o << HF_HEAP_REFS_SHIFT | blk)))
            return 1 + (o << HF_HEAP_REFS_SHIFT | blk);
        if (!hf_heap_decode(h, sn, o, &ob))
            continue;
        uint64_t n = n_slots(sn, &ob);
        for (; blk << BLOCK_BITS < n; blk++) {
            if (blk && hf_tsv_stop(t, start, budget, 1 + (o << HF_HEAP_REFS_SHIFT | blk)))
                return 1 + (o << HF_HEAP_REFS_SHIFT | blk);
            uint64_t a = blk << BLOCK_BITS, b = MIN(n, a + (1u << BLOCK_BITS));
            if (direct && ob.kind != HF_K_CLASS)
                direct_refs(h, sn, &ob, a, b, t);
            else
                entry_refs(d, v->snap, o, ob.id, a, b, t);
        }
    }
    return HF_DONE;
}

HF_HEAP_TABLE(hf_heap_references_tsv, references_rows, HF_HEAP_REFS_SHIFT)

/* ---- classes/NAME/table.tsv ---- */

/* What a row of class c holds after id and shallow. */
typedef enum { ROW_FIELDS, ROW_STRING, ROW_ARRAY, ROW_CLASS } row_kind;

/* Primitive arrays up to this length have their elements in the table. */
#define ELEMENTS_MAX 64

static row_kind kind_of(const hf_hsnap *sn, uint64_t ci, const hf_hclass *c)
{
    if (c->elem)
        return ROW_ARRAY;
    if (ci == sn->class_class)
        return ROW_CLASS;
    return ci == sn->string_class ? ROW_STRING : ROW_FIELDS;
}

static void class_table_header(const hf_hsnap *sn, uint64_t ci, const hf_hclass *c,
                               GString *out)
{
    g_string_append(out, "id\tshallow");
    switch (kind_of(sn, ci, c)) {
    case ROW_ARRAY:
        g_string_append(out, c->elem == HF_T_OBJECT ? "\tlength" : "\tlength\telements");
        break;
    case ROW_CLASS:
        g_string_append(out, "\tdescribes");
        break;
    default: {
        hf_hfields it;
        hf_hfields_begin(&it, sn, c);
        while (hf_hfields_next(&it)) {
            const char *name = hf_hfields_refname(&it);
            g_string_append_c(out, '\t');
            hf_tsv_text(out, name, strlen(name));
        }
        hf_hfields_end(&it);
        if (kind_of(sn, ci, c) == ROW_STRING)
            g_string_append(out, "\ttext");
    }
    }
    g_string_append_c(out, '\n');
}

/* A value of type ty as a number: booleans 0 or 1, chars their code. */
static void put_value(GString *out, unsigned ty, uint64_t v)
{
    switch (ty) {
    case HF_T_OBJECT:
        hf_tsv_id_or_empty(out, v);
        break;
    case HF_T_BOOLEAN:
        g_string_append_c(out, v ? '1' : '0');
        break;
    case HF_T_CHAR:
        hf_tsv_u64(out, (uint16_t)v);
        break;
    case HF_T_FLOAT:
    case HF_T_DOUBLE:
        hf_heap_format_value(out, ty, v);
        break;
    case HF_T_BYTE:
        hf_tsv_i64(out, (int8_t)v);
        break;
    case HF_T_SHORT:
        hf_tsv_i64(out, (int16_t)v);
        break;
    case HF_T_INT:
        hf_tsv_i64(out, (int32_t)v);
        break;
    default:
        hf_tsv_i64(out, (int64_t)v);
    }
}

/* Field i of instance ob: from its data, or where the format keeps none
 * (HPROF text: references only) from its refs/ entry.  False: unknown. */
static bool field_of(hf_dump *d, uint32_t s, uint64_t o, const hf_hobj *ob, uint32_t i,
                     uint64_t *v)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), s);
    if (ob->data)
        return hf_heap_field(H(d), sn, ob, i, v);
    hf_ref_status (*entry)(hf_dump *, uint32_t, uint64_t, uint32_t, char *, hf_target *) =
        refs_entry(d);
    char name[HF_NAME_MAX];
    hf_target to;
    uint32_t offset;
    const hf_hfield *f = hf_hfield_at(sn, hf_heap_class(sn, ob->cls), i, &offset);
    if (!entry || !f || f->type != HF_T_OBJECT)
        return false;
    hf_ref_status st = entry(d, s, o, i, name, &to);
    *v = st == HF_REF_OK ? g_ascii_strtoull(to.name + 2, NULL, 16) : 0;
    return st != HF_REF_END;
}

static void class_table_row(hf_dump *d, uint32_t s, uint64_t o, const hf_hobj *ob, row_kind k,
                            GString *out, GString *text)
{
    hf_heap *h = H(d);
    const hf_hsnap *sn = hf_heap_snap(h, s);
    const hf_hclass *c = hf_heap_class(sn, ob->cls);
    hf_tsv_id(out, ob->id);
    g_string_append_c(out, '\t');
    hf_tsv_u64(out, hf_heap_shallow(h, sn, ob));
    if (k == ROW_ARRAY) {
        g_string_append_c(out, '\t');
        hf_tsv_u64(out, ob->length);
        if (c->elem != HF_T_OBJECT)
            g_string_append_c(out, '\t');
        for (uint64_t i = 0; ob->kind == HF_K_PRIMARRAY && !ob->nodata &&
                             ob->length <= ELEMENTS_MAX && i < ob->length; i++) {
            if (i)
                g_string_append_c(out, ',');
            put_value(out, ob->elem, hf_heap_element(h, ob, i));
        }
    } else if (k == ROW_CLASS) {
        const hf_hclass *self = hf_heap_described(sn, ob);
        g_string_append_c(out, '\t');
        if (self)
            hf_tsv_text(out, self->dir, strlen(self->dir));
    } else {
        hf_hfields it;
        hf_hfields_begin(&it, sn, c);
        while (hf_hfields_next(&it)) {
            uint64_t v;
            g_string_append_c(out, '\t');
            if (field_of(d, s, o, ob, it.index, &v))
                put_value(out, it.f->type, v);
        }
        hf_hfields_end(&it);
        if (k == ROW_STRING) {
            g_string_truncate(text, 0);
            g_string_append_c(out, '\t');
            if (hf_heap_text(h, sn, ob, text))
                hf_tsv_text(out, text->str, text->len);
        }
    }
    g_string_append_c(out, '\n');
}

uint64_t hf_heap_class_table_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    const hf_hsnap *sn = hf_heap_snap(H(d), v->snap);
    const hf_hclass *c = sn ? hf_heap_class(sn, v->index) : NULL;
    if (!c)
        return HF_DONE;
    row_kind k = kind_of(sn, v->index, c);
    size_t start = out->len;
    if (first == 0)
        class_table_header(sn, v->index, c, out);
    GString *text = g_string_new(NULL);
    for (uint64_t o = first ? first - 1 : 0; o < sn->n_objects; o++) {
        if (hf_heap_cls(sn, o) != v->index)
            continue;
        if (hf_budget_spent(out, start, budget)) {
            g_string_free(text, TRUE);
            return o + 1;
        }
        hf_hobj ob;
        if (hf_heap_decode(H(d), sn, o, &ob))
            class_table_row(d, v->snap, o, &ob, k, out, text);
    }
    g_string_free(text, TRUE);
    return HF_DONE;
}
