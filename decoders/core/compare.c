/* compare.c - see compare.h. */
#include "decoders/core/compare.h"
#include "decoders/core/names.h"

#include "decoders/core/search.h"

#include <string.h>

/* ---- growth ---- */

typedef struct {
    const char *name; /* the table's key */
    int64_t count[2], bytes[2];
    bool seen[2];
} row;

typedef struct {
    GHashTable *by_name; /* name -> row (owned) */
    int side;
} tally_ctx;

static void add_row(void *ud, const char *name, int64_t count, int64_t bytes)
{
    tally_ctx *c = ud;
    if (count == 0 && bytes == 0)
        return; /* a site with nothing in use is not there to compare */
    row *r = g_hash_table_lookup(c->by_name, name);
    if (!r) {
        r = g_new0(row, 1);
        r->name = g_strdup(name);
        g_hash_table_insert(c->by_name, (gpointer)r->name, r);
    }
    r->count[c->side] += count;
    r->bytes[c->side] += bytes;
    r->seen[c->side] = true;
}

static void free_row(gpointer p)
{
    row *r = p;
    g_free((char *)r->name);
    g_free(r);
}

static int64_t delta_bytes(const row *r)
{
    return r->bytes[1] - r->bytes[0];
}

static int64_t delta_count(const row *r)
{
    return r->count[1] - r->count[0];
}

static gint cmp_growth(gconstpointer a, gconstpointer b)
{
    const row *x = *(row *const *)a, *y = *(row *const *)b;
    if (delta_bytes(x) != delta_bytes(y))
        return delta_bytes(x) > delta_bytes(y) ? -1 : 1;
    if (delta_count(x) != delta_count(y))
        return delta_count(x) > delta_count(y) ? -1 : 1;
    return strcmp(x->name, y->name);
}

bool hf_compare_has_growth(hf_snapref a, hf_snapref b, bool retained)
{
    return a.d->ops->tally && b.d->ops->tally && a.d->ops->tally(a.d, a.s, retained, NULL, NULL) &&
           b.d->ops->tally(b.d, b.s, retained, NULL, NULL);
}

uint64_t hf_compare_growth(hf_snapref a, hf_snapref b, bool retained, uint64_t first,
                           GString *out, size_t budget)
{
    if (!hf_compare_has_growth(a, b, retained))
        return HF_DONE;
    tally_ctx c = {g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_row), 0};
    bool ok = a.d->ops->tally(a.d, a.s, retained, add_row, &c);
    c.side = 1;
    if (!ok || !b.d->ops->tally(b.d, b.s, retained, add_row, &c)) {
        /* retained sizes that could not be computed (the snapshot's
         * dominators view says why) */
        g_string_append(out, "# no comparison: a snapshot's tally could not be made\n");
        g_hash_table_destroy(c.by_name);
        return HF_DONE;
    }
    GPtrArray *rows = g_ptr_array_new();
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, c.by_name);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        row *r = v;
        if (delta_bytes(r) || delta_count(r) || r->seen[0] != r->seen[1])
            g_ptr_array_add(rows, r);
    }
    g_ptr_array_sort(rows, cmp_growth);
    const char *what = retained ? "retained" : "bytes";
    /* docs/views.md: the change since the snapshot before (a minus sign
     * where negative, never a '+', which sort -n does not read), then what
     * is there now; largest growth first.  The name is the tally's, last
     * (OEMP's is "TYPE<TAB>NAME", its histogram-by-name's two columns). */
    g_string_append_printf(out, "# delta_objects\tdelta_%s\tobjects\t%s\tstate\tname\n", what,
                           what);
    for (guint i = 0; i < rows->len; i++) {
        const row *r = g_ptr_array_index(rows, i);
        const char *state = !r->seen[0] ? "new" : !r->seen[1] ? "gone" : "changed";
        g_string_append_printf(out, "%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
                                    "\t%" G_GINT64_FORMAT "\t%s\t%s\n",
                               (gint64)delta_count(r), (gint64)delta_bytes(r),
                               (gint64)r->count[1], (gint64)r->bytes[1], state, r->name);
    }
    g_ptr_array_free(rows, TRUE);
    g_hash_table_destroy(c.by_name);
    return HF_DONE;
}

/* ---- flame-diff.svg ---- */

/* Whether snapshot r has a stacks.folded file (its has(): cheap). */
static bool has_folded(hf_snapref r)
{
    if (!r.d->ops->stacks)
        return false;
    for (const hf_file *f = r.d->ops->snapshot.files; f && f->name; f++)
        if (strcmp(f->name, "stacks.folded") == 0)
            return !f->has || f->has(r.d, r.s, 0);
    return false;
}

bool hf_compare_has_flame_diff(hf_snapref a, hf_snapref b)
{
    return b.d->ops->flame_diff && has_folded(a) && has_folded(b);
}

uint64_t hf_compare_flame_diff(hf_snapref a, hf_snapref b, uint64_t first, GString *out,
                               size_t budget)
{
    if (!hf_compare_has_flame_diff(a, b))
        return HF_DONE;
    return b.d->ops->flame_diff(a, b, first, out, budget);
}

/* ---- strings-new ---- */

struct hf_textset {
    uint64_t *hash; /* sorted, distinct */
    size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool hf_compare_has_strings(hf_snapref a, hf_snapref b)
{
    return a.d->ops->text && b.d->ops->text && a.d->ops->n_objects && b.d->ops->n_objects &&
           a.d->ops->object_name && b.d->ops->object_name;
}

hf_textset *hf_textset_new(hf_snapref a)
{
    GArray *h = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    GString *t = g_string_new(NULL);
    for (uint64_t o = 0, n = a.d->ops->n_objects(a.d, a.s); o < n; o++) {
        g_string_truncate(t, 0);
        if (!a.d->ops->text(a.d, a.s, o, t))
            continue;
        uint64_t x = hf_hash_bytes(t->str, t->len);
        g_array_append_val(h, x);
    }
    g_string_free(t, TRUE);
    if (h->len) /* qsort's array may not be NULL, even empty */
        qsort(h->data, h->len, sizeof(uint64_t), cmp_u64);
    size_t k = 0;
    uint64_t *v = (uint64_t *)h->data;
    for (size_t i = 0; i < h->len; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    hf_textset *s = g_new0(hf_textset, 1);
    s->n = k;
    s->hash = g_renew(uint64_t, (uint64_t *)g_array_free(h, FALSE), k ? k : 1);
    return s;
}

void hf_textset_free(hf_textset *t)
{
    if (t) {
        g_free(t->hash);
        g_free(t);
    }
}

static bool textset_has(const hf_textset *s, uint64_t x)
{
    size_t i = hf_lower_bound_u64(s->hash, s->n, x);
    return i < s->n && s->hash[i] == x;
}

uint64_t hf_compare_strings_new(const hf_textset *before, hf_snapref b, uint64_t first,
                                GString *out, size_t budget)
{
    size_t start = out->len;
    if (first == 0) /* item 0 is the header; item o + 1 is object o */
        g_string_append(out, "# id\ttext\n");
    GString *t = g_string_new(NULL);
    char name[HF_NAME_MAX];
    for (uint64_t o = first ? first - 1 : 0, n = b.d->ops->n_objects(b.d, b.s); o < n; o++) {
        g_string_truncate(t, 0);
        if (!b.d->ops->text(b.d, b.s, o, t) || textset_has(before, hf_hash_bytes(t->str, t->len)))
            continue;
        if (hf_budget_spent(out, start, budget)) {
            g_string_free(t, TRUE);
            return o + 1;
        }
        b.d->ops->object_name(b.d, b.s, o, name);
        g_string_append_printf(out, "%s\t", name);
        hf_escape_text(out, t->str, t->len);
        g_string_append_c(out, '\n');
    }
    g_string_free(t, TRUE);
    return HF_DONE;
}
