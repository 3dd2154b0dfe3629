/*
 * retviews.c - see retviews.h.
 */
#include "decoders/heap/retviews.h"

#include "decoders/core/names.h"
#include "decoders/core/search.h"
#include "decoders/heap/fields.h"

#include <string.h>

#define H(d) ((hf_heap *)(d))
#define DESCRIBE_TEXT_MAX 80

void hf_rv_pct(GString *out, uint64_t part, uint64_t whole)
{
    g_string_append_printf(out, "%.2f", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

void hf_rv_what(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out)
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, v, &ob)) {
        g_string_append_c(out, '?');
        return;
    }
    const hf_hclass *self = hf_heap_described(sn, &ob);
    if (self)
        g_string_append(out, "class ");
    hf_escape_str(out, (self ? self : hf_heap_class(sn, ob.cls))->dir);
}

void hf_rv_node(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out)
{
    g_string_append_printf(out, HF_FMT_ID " ", (guint64)hf_heap_object_id(h, sn, v));
    hf_rv_what(h, sn, v, out);
}

const hf_hgraph *hf_rv_graph_or_say(hf_dump *d, uint32_t s, GString *out)
{
    const hf_hgraph *g = hf_heap_graph(H(d), s);
    if (g->error) {
        g_string_append_printf(out, "# no retained sizes: %s\n", g->error);
        return NULL;
    }
    return g;
}

typedef struct {
    const hf_hroot *roots;
    uint8_t kind;
    uint64_t id;
} root_key;

static bool kind_below(const void *ud, uint64_t i)
{
    const root_key *k = ud;
    return k->roots[i].kind < k->kind;
}

static bool id_below(const void *ud, uint64_t i)
{
    const root_key *k = ud;
    return k->roots[i].id < k->id;
}

void hf_rv_root_index_init(const hf_hsnap *sn, hf_rv_root_index *ix)
{
    root_key k = {(const hf_hroot *)sn->roots->data, 0, 0};
    for (unsigned kind = 0; kind <= HF_ROOT_NKINDS; kind++) {
        k.kind = (uint8_t)kind;
        ix->start[kind] = (uint32_t)hf_lower_bound(0, sn->roots->len, kind_below, &k);
    }
}

uint32_t hf_rv_root_mask(const hf_hsnap *sn, const hf_rv_root_index *ix, uint64_t id)
{
    hf_rv_root_index own;
    if (!ix) {
        hf_rv_root_index_init(sn, &own);
        ix = &own;
    }
    root_key k = {(const hf_hroot *)sn->roots->data, 0, id};
    uint32_t mask = 0;
    for (unsigned kind = 0; kind < HF_ROOT_NKINDS; kind++) {
        uint32_t a = ix->start[kind], b = ix->start[kind + 1];
        if (a >= b)
            continue;
        uint64_t i = hf_lower_bound(a, b, id_below, &k);
        if (i < b && k.roots[i].id == id)
            mask |= 1u << kind;
    }
    return mask;
}

void hf_rv_root_names(uint32_t mask, GString *out)
{
    bool any = false;
    for (unsigned kind = 0; kind < HF_ROOT_NKINDS; kind++)
        if (mask >> kind & 1) {
            g_string_append_printf(out, "%s%s", any ? "," : "", hf_root_names[kind]);
            any = true;
        }
    if (!any)
        g_string_append(out, "root");
}

void hf_rv_path(hf_heap *h, const hf_hsnap *sn, const hf_hgraph *g, uint32_t v,
                const char *indent, uint32_t mark, const char *mark_text, GString *out)
{
    uint32_t depth = hf_parents_depth(&g->parent, &g->pred, v);
    if (depth == HF_NONE) {
        g_string_append_printf(out, "%sunreachable: no GC root reaches ", indent);
        hf_rv_node(h, sn, v, out);
        g_string_append_c(out, '\n');
        return;
    }
    uint32_t *hops = g_new(uint32_t, depth);
    for (uint32_t i = depth, w = v; i-- > 0; w = hf_parents_get(&g->parent, &g->pred, w))
        hops[i] = w;
    for (uint32_t i = 0; i < depth; i++) {
        g_string_append(out, indent);
        hf_rv_node(h, sn, hops[i], out);
        if (i == 0) {
            g_string_append(out, " (root: ");
            hf_rv_root_names(hf_rv_root_mask(sn, NULL, hf_heap_object_id(h, sn, hops[0])), out);
            g_string_append_c(out, ')');
        } else {
            char name[HF_NAME_MAX];
            if (!hf_heap_ref_name(h, sn, hops[i - 1], hops[i], 0, name))
                g_strlcpy(name, "?", sizeof name);
            g_string_append(out, " via ");
            hf_escape_str(out, name);
        }
        if (hops[i] == mark)
            g_string_append_printf(out, " <- %s", mark_text);
        g_string_append_c(out, '\n');
    }
    g_free(hops);
}

uint32_t hf_rv_owner_class(hf_heap *h, const hf_hsnap *sn, uint32_t v, bool *is_class)
{
    uint32_t c = hf_heap_cls(sn, v);
    *is_class = false;
    if (c != sn->class_class)
        return c;
    int64_t k = hf_heap_class_by_id(sn, hf_heap_object_id(h, sn, v));
    if (k < 0)
        return c;
    *is_class = true;
    return (uint32_t)k;
}

uint32_t hf_rv_class_node(hf_heap *h, const hf_hsnap *sn, uint32_t c)
{
    const hf_hclass *k = hf_heap_class(sn, c);
    int64_t o = k->id ? hf_heap_find_id(h, sn, k->id) : -1;
    return o < 0 ? HF_NONE : (uint32_t)o;
}

/* An instance's int field `size` (collections keep their size there). */
static bool int_size(hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, uint64_t *size)
{
    hf_hfields it;
    bool found = false;
    hf_hfields_begin(&it, sn, hf_heap_class(sn, ob->cls));
    while (!found && hf_hfields_next(&it))
        if (it.f->type == HF_T_INT && strcmp(it.f->name, "size") == 0)
            found = hf_heap_field(h, sn, ob, it.index, size);
    hf_hfields_end(&it);
    return found;
}

void hf_rv_describe(hf_heap *h, const hf_hsnap *sn, uint32_t v, GString *out)
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, v, &ob))
        return;
    const hf_hclass *self = hf_heap_described(sn, &ob);
    uint64_t size;
    if (self) {
        g_string_append(out, "class ");
        hf_escape_str(out, self->dir);
    } else if (ob.kind == HF_K_OBJARRAY || ob.kind == HF_K_PRIMARRAY) {
        g_string_append_printf(out, "length=%" G_GUINT64_FORMAT, (guint64)ob.length);
    } else if (ob.cls == sn->string_class) {
        GString *t = g_string_new(NULL);
        if (hf_heap_text(h, sn, &ob, t)) {
            bool cut = t->len > DESCRIBE_TEXT_MAX;
            size_t n = cut ? DESCRIBE_TEXT_MAX : t->len;
            while (cut && n > 0 && ((unsigned char)t->str[n] & 0xc0) == 0x80)
                n--; /* not inside a UTF-8 sequence */
            hf_escape_text(out, t->str, n);
            if (cut)
                g_string_append(out, "...");
        }
        g_string_free(t, TRUE);
    } else if (int_size(h, sn, &ob, &size)) {
        g_string_append_printf(out, "size=%" G_GUINT64_FORMAT, (guint64)size);
    }
}

static gint cmp_class_rows(gconstpointer a, gconstpointer b, gpointer ud)
{
    const hf_rv_class_row *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return strcmp(hf_heap_class(ud, x->cls)->dir, hf_heap_class(ud, y->cls)->dir);
}

void hf_rv_sort_class_rows(const hf_hsnap *sn, GArray *rows)
{
    g_array_sort_with_data(rows, cmp_class_rows, (gpointer)sn);
}

/* ---- the n greatest ---- */

/* a ranks below b */
static bool below(const hf_rv_ranked *a, const hf_rv_ranked *b)
{
    return a->key != b->key ? a->key < b->key : a->v > b->v;
}

void hf_rv_top_init(hf_rv_top *t, uint32_t cap)
{
    t->a = g_new(hf_rv_ranked, cap ? cap : 1);
    t->len = 0;
    t->cap = cap;
}

static void sift_down(hf_rv_ranked *a, uint32_t len, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < len && below(&a[l], &a[m]))
            m = l;
        if (r < len && below(&a[r], &a[m]))
            m = r;
        if (m == i)
            return;
        hf_rv_ranked x = a[i];
        a[i] = a[m];
        a[m] = x;
        i = m;
    }
}

void hf_rv_top_add(hf_rv_top *t, uint64_t key, uint32_t v)
{
    hf_rv_ranked x = {key, v};
    if (t->len < t->cap) {
        uint32_t i = t->len++;
        while (i > 0 && below(&x, &t->a[(i - 1) / 2])) {
            t->a[i] = t->a[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        t->a[i] = x;
    } else if (t->cap && below(&t->a[0], &x)) {
        t->a[0] = x;
        sift_down(t->a, t->len, 0);
    }
}

static gint cmp_ranked(gconstpointer a, gconstpointer b)
{
    return below(a, b) ? 1 : below(b, a) ? -1 : 0;
}

void hf_rv_top_sort(hf_rv_top *t)
{
    qsort(t->a, t->len, sizeof *t->a, cmp_ranked);
}

void hf_rv_top_free(hf_rv_top *t)
{
    g_free(t->a);
    t->a = NULL;
    t->len = t->cap = 0;
}
