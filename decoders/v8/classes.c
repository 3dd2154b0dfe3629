/*
 * classes.c - two things DevTools does to class names that heap.c's
 * class_name cannot do node by node (HeapSnapshot.ts, facts only):
 *
 * DOM state: V8 marks some native (embedder) nodes attached (1) or
 * detached (2).  Attached spreads to native nodes reached over edges that
 * are not hidden or weak, then detached spreads the same way to those not
 * reached yet; JavaScript nodes stop the spread.  Detached native nodes
 * are named "Detached NAME".
 *
 * Interfaces: plain objects (type object, name "Object") are grouped by
 * their properties.  Each plain object names an interface "{a, b, c}" from
 * its property edges in order (not __proto__; names holding , ' " { or }
 * JSON-quoted; the name stops growing before 120 characters); interfaces
 * at least max(2, plain objects / 1000) objects name are kept, most
 * common first.  A plain object then takes the kept interface with the
 * most properties that are all among its own (ties: the more common),
 * or stays "Object".
 */
#include "decoders/v8/v8.h"

#include <string.h>

#define NAME_MAX_LEN 120

void v8_dom_state(v8_snap *sn)
{
    uint8_t *visited = g_new0(uint8_t, sn->n);
    GArray *list[3] = {NULL, g_array_new(FALSE, FALSE, 4), g_array_new(FALSE, FALSE, 4)};
#define PROCESS(v, state)                                                                      \
    do {                                                                                       \
        uint32_t v_ = (v);                                                                     \
        if (visited[v_])                                                                       \
            break;                                                                             \
        visited[v_] = 1;                                                                       \
        if (sn->type[v_] != V8N_NATIVE)                                                        \
            break;                                                                             \
        sn->detached[v_] = (state);                                                            \
        if ((state) == 1 || (state) == 2)                                                      \
            g_array_append_val(list[(state)], v_);                                             \
    } while (0)
    for (uint32_t v = 0; v < sn->n; v++)
        if (sn->detached[v])
            PROCESS(v, sn->detached[v]);
    for (uint8_t state = 1; state <= 2; state++) {
        GArray *l = list[state];
        while (l->len) {
            uint32_t v = g_array_index(l, uint32_t, l->len - 1);
            g_array_set_size(l, l->len - 1);
            if (state == 2 && sn->detached[v] == 1)
                continue;
            for (uint32_t e = sn->first[v]; e < sn->first[v + 1]; e++)
                if (sn->eto[e] != UINT32_MAX && sn->etype[e] != V8E_HIDDEN &&
                    sn->etype[e] != V8E_WEAK)
                    PROCESS(sn->eto[e], state);
        }
    }
#undef PROCESS
    sn->n_detached = 0;
    for (uint32_t v = 0; v < sn->n; v++)
        sn->n_detached += sn->detached[v] == 2;
    g_array_free(list[1], TRUE);
    g_array_free(list[2], TRUE);
    g_free(visited);
}

/* Length in UTF-16 units, as JavaScript counts a string. */
static size_t js_len(const char *s, size_t n)
{
    size_t len = 0;
    for (const char *p = s; p < s + n; p = g_utf8_next_char(p))
        len += g_utf8_get_char_validated(p, s + n - p) >= 0x10000 ? 2 : 1;
    return len;
}

/* A property name as DevTools writes it in an interface name. */
static void format_property(GString *out, const char *name)
{
    if (!strpbrk(name, ",'\"{}")) {
        g_string_append(out, name);
        return;
    }
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf(out, "\\%c", *p);
        else if (*p == '\n')
            g_string_append(out, "\\n");
        else if (*p == '\t')
            g_string_append(out, "\\t");
        else if (*p == '\r')
            g_string_append(out, "\\r");
        else if (*p == '\b')
            g_string_append(out, "\\b");
        else if (*p == '\f')
            g_string_append(out, "\\f");
        else if (*p < 0x20)
            g_string_append_printf(out, "\\u%04x", *p);
        else
            g_string_append_c(out, (char)*p);
    }
    g_string_append_c(out, '"');
}

typedef struct {
    char *name;
    GArray *props; /* string indices */
    uint64_t count;
    uint32_t order; /* first seen */
} candidate;

static void candidate_free(gpointer p)
{
    candidate *c = p;
    g_free(c->name);
    g_array_free(c->props, TRUE);
    g_free(c);
}

static int by_count(gconstpointer a, gconstpointer b)
{
    const candidate *x = *(candidate *const *)a, *y = *(candidate *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Whether node v is a plain object (memo per string index: 0 unknown). */
static bool plain(const v8_snap *sn, uint32_t v, uint8_t *memo, GString *t)
{
    if (sn->type[v] != V8N_OBJECT || sn->name[v] >= sn->n_strings)
        return false;
    uint8_t *m = &memo[sn->name[v]];
    if (!*m) {
        g_string_truncate(t, 0);
        v8_string(sn, sn->name[v], t);
        *m = strcmp(t->str, "Object") == 0 ? 2 : 1;
    }
    return *m == 2;
}

/* The kept interfaces, most common first (candidate *). */
static GPtrArray *infer(const v8_snap *sn, uint8_t *memo, GString *t)
{
    GHashTable *by_name = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *all = g_ptr_array_new();
    uint64_t total = 0;
    GString *name = g_string_new(NULL);
    GArray *props = g_array_new(FALSE, FALSE, 4);
    for (uint32_t v = 0; v < sn->n; v++) {
        if (!plain(sn, v, memo, t))
            continue;
        total++;
        g_string_assign(name, "{");
        g_array_set_size(props, 0);
        size_t len = 1; /* of name, in UTF-16 units */
        for (uint32_t e = sn->first[v]; e < sn->first[v + 1]; e++) {
            if (sn->etype[e] != V8E_PROPERTY)
                continue;
            g_string_truncate(t, 0);
            v8_string(sn, sn->ename[e], t);
            if (strcmp(t->str, "__proto__") == 0)
                continue;
            size_t at = name->len;
            format_property(name, t->str);
            size_t add = js_len(name->str + at, name->len - at);
            g_string_truncate(name, at);
            if (len > 1 && len + add > NAME_MAX_LEN)
                break;
            if (len != 1) {
                g_string_append(name, ", ");
                len += 2;
            }
            format_property(name, t->str);
            len += add;
            g_array_append_val(props, sn->ename[e]);
        }
        if (!props->len)
            continue;
        g_string_append_c(name, '}');
        candidate *c = g_hash_table_lookup(by_name, name->str);
        if (!c) {
            c = g_new0(candidate, 1);
            c->name = g_strdup(name->str);
            c->props = g_array_copy(props);
            c->order = all->len;
            g_ptr_array_add(all, c);
            g_hash_table_insert(by_name, c->name, c);
        }
        c->count++;
    }
    g_ptr_array_sort(all, by_count);
    double min = MAX(2.0, (double)total / 1000);
    GPtrArray *kept = g_ptr_array_new_with_free_func(candidate_free);
    for (guint i = 0; i < all->len; i++) {
        candidate *c = g_ptr_array_index(all, i);
        if ((double)c->count >= min && kept->len == i)
            g_ptr_array_add(kept, c);
        else
            candidate_free(c);
    }
    g_ptr_array_free(all, TRUE);
    g_hash_table_destroy(by_name);
    g_string_free(name, TRUE);
    g_array_free(props, TRUE);
    return kept;
}

GPtrArray *v8_interfaces(const v8_snap *sn, uint32_t **of)
{
    GString *t = g_string_new(NULL);
    uint8_t *memo = g_new0(uint8_t, (size_t)sn->n_strings + 1);
    GPtrArray *defs = infer(sn, memo, t);
    *of = g_new(uint32_t, sn->n);
    memset(*of, 0xff, (size_t)sn->n * 4);
    /* per property (string index): the interfaces that have it */
    GHashTable *having = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                               (GDestroyNotify)g_array_unref);
    for (guint i = 0; i < defs->len; i++) {
        const candidate *c = g_ptr_array_index(defs, i);
        for (guint k = 0; k < c->props->len; k++) {
            gpointer key = GUINT_TO_POINTER(g_array_index(c->props, uint32_t, k));
            GArray *l = g_hash_table_lookup(having, key);
            if (!l)
                g_hash_table_insert(having, key, l = g_array_new(FALSE, FALSE, 4));
            uint32_t ii = i;
            if (!l->len || g_array_index(l, uint32_t, l->len - 1) != ii)
                g_array_append_val(l, ii);
        }
    }
    uint32_t *hits = g_new0(uint32_t, defs->len + 1);
    GArray *touched = g_array_new(FALSE, FALSE, 4);
    for (uint32_t v = 0; defs->len && v < sn->n; v++) {
        if (!plain(sn, v, memo, t))
            continue;
        g_array_set_size(touched, 0);
        for (uint32_t e = sn->first[v]; e < sn->first[v + 1]; e++) {
            if (sn->etype[e] != V8E_PROPERTY)
                continue;
            GArray *l = g_hash_table_lookup(having, GUINT_TO_POINTER(sn->ename[e]));
            for (guint k = 0; l && k < l->len; k++) {
                uint32_t i = g_array_index(l, uint32_t, k);
                if (!hits[i]++)
                    g_array_append_val(touched, i);
            }
        }
        uint32_t best = UINT32_MAX;
        for (guint k = 0; k < touched->len; k++) {
            uint32_t i = g_array_index(touched, uint32_t, k);
            const candidate *c = g_ptr_array_index(defs, i);
            if (hits[i] >= c->props->len &&
                (best == UINT32_MAX ||
                 c->props->len > ((candidate *)g_ptr_array_index(defs, best))->props->len ||
                 (c->props->len == ((candidate *)g_ptr_array_index(defs, best))->props->len &&
                  i < best)))
                best = i;
            hits[i] = 0;
        }
        (*of)[v] = best;
    }
    g_array_free(touched, TRUE);
    g_free(hits);
    g_hash_table_destroy(having);
    g_free(memo);
    g_string_free(t, TRUE);
    return defs;
}

const char *v8_interface_name(GPtrArray *defs, uint32_t i)
{
    return ((candidate *)g_ptr_array_index(defs, i))->name;
}
