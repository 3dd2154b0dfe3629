/*
 * fields.c - see fields.h.
 */
#include "decoders/heap/fields.h"
#include "decoders/core/names.h"
#include "decoders/core/search.h"

#include <string.h>

size_t hf_hname_cut(const char *s)
{
    size_t n = HF_HNAME_KEEP;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    if (n >= 1 && s[n - 1] == '%')
        n -= 1;
    else if (n >= 2 && s[n - 2] == '%')
        n -= 2;
    return n;
}

const hf_hclass *hf_hclass_next_part(const hf_hsnap *sn, const hf_hclass *c, uint32_t *base)
{
    const hf_hclass *sup = c->super >= 0 ? hf_heap_class(sn, (uint64_t)c->super) : NULL;
    if (!sup || sup->data_size > c->data_size)
        return NULL; /* (a damaged index file: never laid out so) */
    *base += c->data_size - sup->data_size;
    return sup;
}

void hf_hfields_begin(hf_hfields *it, const hf_hsnap *sn, const hf_hclass *c)
{
    memset(it, 0, sizeof *it);
    it->sn = sn;
    it->top = c;
    hf_hfields_seek(it, 0);
}

/* Moves from at to the next class's part; NULL past the last, or after
 * more than HF_HCHAIN_MAX classes. */
static const hf_hclass *climb(hf_hfields *it)
{
    return ++it->levels > HF_HCHAIN_MAX ? NULL : hf_hclass_next_part(it->sn, it->at, &it->base);
}

void hf_hfields_seek(hf_hfields *it, uint32_t i)
{
    it->at = it->top;
    it->k = it->base = it->levels = 0;
    it->index = i - 1; /* UINT32_MAX before the first */
    uint32_t refs = 0;
    if (!it->top || i >= it->top->n_fields)
        return; /* next() says there is none */
    while (it->at && i >= it->at->n_decl) {
        i -= it->at->n_decl;
        refs += it->at->n_own_refs;
        it->at = climb(it);
    }
    for (uint32_t j = 0; it->at && j < i; j++)
        refs += it->at->decl[j].type == HF_T_OBJECT;
    it->k = i;
    it->ref = refs - 1;
}

bool hf_hfields_next(hf_hfields *it)
{
    uint32_t i = it->index + 1;
    if (!it->top || i >= it->top->n_fields)
        return false;
    while (it->at && it->k >= it->at->n_decl) {
        it->at = climb(it);
        it->k = 0;
    }
    if (!it->at)
        return false;
    it->f = &it->at->decl[it->k++];
    it->index = i;
    it->offset = it->base + it->f->offset;
    if (it->f->type == HF_T_OBJECT)
        it->ref++;
    return true;
}

/* raw when it is a file name, else escaped into out (and cut when too
 * long, marked with the field's index). */
static const char *ref_entry(GString *out, const char *raw, uint32_t i)
{
    size_t n = strlen(raw);
    if (n && n <= HF_HNAME_KEEP && !strpbrk(raw, "/%") && strcmp(raw, ".") != 0 &&
        strcmp(raw, "..") != 0)
        return raw;
    g_string_truncate(out, 0);
    hf_name_escape_append(out, raw, n);
    if (out->len > HF_HNAME_KEEP) {
        g_string_truncate(out, hf_hname_cut(out->str));
        g_string_append_printf(out, "~%u", i);
    }
    return out->str;
}

static int cmp_by_name(gconstpointer a, gconstpointer b, gpointer ud)
{
    const hf_hfield *decl = ud;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int r = strcmp(decl[x].name, decl[y].name);
    return r ? r : (x > y) - (x < y);
}

void hf_hclass_index_names(hf_hclass *c)
{
    c->by_name = g_new(uint32_t, c->n_decl + 1);
    for (uint32_t i = 0; i < c->n_decl; i++)
        c->by_name[i] = i;
    g_qsort_with_data(c->by_name, (gint)c->n_decl, sizeof *c->by_name, cmp_by_name, c->decl);
}

typedef struct {
    const hf_hclass *c;
    const char *name;
} name_key;

static bool name_below(const void *ud, uint64_t i)
{
    const name_key *k = ud;
    return strcmp(k->c->decl[k->c->by_name[i]].name, k->name) < 0;
}

/* The first of c's declared fields named name (decl index), n_decl when
 * c declares none. */
static uint32_t first_named(const hf_hclass *c, const char *name)
{
    if (!c->by_name)
        return c->n_decl;
    name_key k = {c, name};
    uint64_t i = hf_lower_bound(0, c->n_decl, name_below, &k);
    return i < c->n_decl && strcmp(c->decl[c->by_name[i]].name, name) == 0 ? c->by_name[i]
                                                                           : c->n_decl;
}

/* Whether a field met before the current one has its name: one declared
 * by a class nearer the top, or by its own class before it (a binary
 * search in each, not a walk of the fields before it). */
static bool shadowed(const hf_hfields *it)
{
    uint32_t base = 0, k = it->k - 1;
    const hf_hclass *c = it->top;
    for (unsigned levels = 0; c && c != it->at && levels <= HF_HCHAIN_MAX; levels++) {
        if (first_named(c, it->f->name) < c->n_decl)
            return true;
        c = hf_hclass_next_part(it->sn, c, &base);
    }
    return first_named(it->at, it->f->name) < k;
}

const char *hf_hfields_refname(hf_hfields *it)
{
    if (!it->buf)
        it->buf = g_string_new(NULL);
    if (!shadowed(it))
        return ref_entry(it->buf, it->f->name, it->index);
    /* shadowed by a field nearer the class: name@Declaring */
    const hf_hclass *dc = hf_heap_class(it->sn, it->f->decl);
    char *r = g_strdup_printf("%s@%s", it->f->name, dc ? dc->name : "?");
    if (ref_entry(it->buf, r, it->index) == r)
        g_string_assign(it->buf, r);
    g_free(r);
    return it->buf->str;
}

void hf_hfields_end(hf_hfields *it)
{
    if (it->buf)
        g_string_free(it->buf, TRUE);
    it->buf = NULL;
}

const hf_hfield *hf_hfield_at(const hf_hsnap *sn, const hf_hclass *c, uint32_t i,
                              uint32_t *offset)
{
    if (!c || i >= c->n_fields)
        return NULL;
    uint32_t base = 0;
    for (unsigned levels = 0; i >= c->n_decl; levels++) {
        i -= c->n_decl;
        if (levels >= HF_HCHAIN_MAX || !(c = hf_hclass_next_part(sn, c, &base)))
            return NULL;
    }
    *offset = base + c->decl[i].offset;
    return &c->decl[i];
}

bool hf_hfield_refname(const hf_hsnap *sn, const hf_hclass *c, uint32_t i,
                       char name[HF_NAME_MAX])
{
    hf_hfields it;
    hf_hfields_begin(&it, sn, c);
    hf_hfields_seek(&it, i);
    bool found = hf_hfields_next(&it);
    if (found)
        g_strlcpy(name, hf_hfields_refname(&it), HF_NAME_MAX);
    hf_hfields_end(&it);
    return found;
}

int64_t hf_hfield_ref_named(const hf_hsnap *sn, const hf_hclass *c, const char *name)
{
    hf_hfields it;
    hf_hfields_begin(&it, sn, c);
    int64_t r = -1;
    while (r < 0 && hf_hfields_next(&it))
        if (it.f->type == HF_T_OBJECT && strcmp(hf_hfields_refname(&it), name) == 0)
            r = it.index;
    hf_hfields_end(&it);
    return r;
}
