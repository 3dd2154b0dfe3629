/*
 * derive.c - what DevTools derives from a snapshot before its dominators
 * (the list is at the top of scan.c): page-owned nodes, shallow sizes
 * moved to owners, essential edges, nodes under the root for want of a
 * strong retainer.  Single-threaded, at open; the temporary arrays are
 * freed before it returns.
 */
#include "decoders/v8/v8.h"

#include <string.h>

#define UNVISITED UINT32_MAX
#define SHARED (UINT32_MAX - 1)

/* Per string index: whether its text equals `want` (cache: 0 unknown, 1
 * no, 2 yes). */
static bool name_is(const v8_snap *sn, uint32_t i, const char *want, uint8_t *cache,
                    GString *tmp)
{
    if (i >= sn->n_strings)
        return false;
    if (!cache[i]) {
        g_string_truncate(tmp, 0);
        v8_string(sn, i, tmp);
        cache[i] = strcmp(tmp->str, want) == 0 ? 2 : 1;
    }
    return cache[i] == 2;
}

static bool is_dom_trees_root(const v8_snap *sn, uint32_t v, uint8_t *cache, GString *tmp)
{
    return sn->type[v] == V8N_SYNTHETIC && name_is(sn, sn->name[v], "(Document DOM trees)",
                                                   cache, tmp);
}

/* Page-owned nodes (one byte each). */
static uint8_t *page_owned(const v8_snap *sn, uint8_t *cache, GString *tmp)
{
    uint8_t *page = g_new0(uint8_t, sn->n);
    uint32_t *stack = g_new(uint32_t, sn->n), top = 0;
    for (uint32_t e = sn->first[sn->root]; e < sn->first[sn->root + 1]; e++) {
        uint32_t t = sn->eto[e];
        if (t == UINT32_MAX)
            continue;
        if (sn->etype[e] == V8E_ELEMENT ? !is_dom_trees_root(sn, t, cache, tmp)
                                        : sn->etype[e] != V8E_SHORTCUT)
            continue;
        if (!page[t])
            stack[top++] = t;
        page[t] = 1;
    }
    while (top) {
        uint32_t v = stack[--top];
        for (uint32_t e = sn->first[v]; e < sn->first[v + 1]; e++) {
            uint32_t t = sn->eto[e];
            if (t == UINT32_MAX || page[t] || sn->etype[e] == V8E_WEAK)
                continue;
            page[t] = 1;
            stack[top++] = t;
        }
    }
    g_free(stack);
    return page;
}

static bool has_user_roots(const v8_snap *sn, uint8_t *cache, GString *tmp)
{
    for (uint32_t e = sn->first[sn->root]; e < sn->first[sn->root + 1]; e++) {
        uint32_t t = sn->eto[e];
        if (t != UINT32_MAX &&
            (sn->type[t] != V8N_SYNTHETIC || is_dom_trees_root(sn, t, cache, tmp)))
            return true;
    }
    return false;
}

/* sn->size: self sizes, those of owned hidden and array nodes moved to
 * their single owner (when the snapshot has user roots). */
static void shallow_sizes(v8_snap *sn, GString *tmp)
{
    sn->size = g_memdup2(sn->raw_size, (size_t)sn->n * 8);
    if (!sn->user_roots)
        return;
    uint8_t *ext = g_new0(uint8_t, sn->n_strings + 1);
    uint32_t *owner = g_new(uint32_t, sn->n);
    GArray *work = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t i = 0; i < sn->n; i++) {
        bool owned = sn->type[i] == V8N_HIDDEN || sn->type[i] == V8N_ARRAY ||
                     (sn->type[i] == V8N_NATIVE &&
                      name_is(sn, sn->name[i], "system / ExternalStringData", ext, tmp));
        owner[i] = owned ? UNVISITED : i;
        if (!owned)
            g_array_append_val(work, i);
    }
    while (work->len) {
        uint32_t v = g_array_index(work, uint32_t, work->len - 1);
        g_array_set_size(work, work->len - 1);
        uint32_t o = owner[v];
        for (uint32_t e = sn->first[v]; e < sn->first[v + 1]; e++) {
            uint32_t t = sn->eto[e];
            if (t == UINT32_MAX || sn->etype[e] == V8E_WEAK)
                continue;
            if (owner[t] == UNVISITED) {
                owner[t] = o;
                g_array_append_val(work, t);
            } else if (owner[t] != t && owner[t] != o && owner[t] != SHARED) {
                owner[t] = SHARED;
                g_array_append_val(work, t);
            }
        }
    }
    for (uint32_t i = 0; i < sn->n; i++) {
        uint32_t o = owner[i];
        if (o == UNVISITED || o == SHARED || o == i || sn->type[o] == V8N_SYNTHETIC ||
            o == sn->root)
            continue;
        sn->size[o] += sn->size[i];
        sn->size[i] = 0;
    }
    g_array_free(work, TRUE);
    g_free(owner);
    g_free(ext);
}

static const char *digits(const char *p)
{
    while (g_ascii_isdigit(*p))
        p++;
    return p;
}

/* The table id of a WeakMap entry's edge name "N / part of key (K @1) ->
 * value (V @2) pair in WeakMap (table @3)", 0 when the name is not one. */
static uint64_t weakmap_table(const char *s)
{
    static const char pre[] = " / part of key (", mid[] = ") -> value (",
                      suf[] = ") pair in WeakMap (table @";
    const char *p = digits(s);
    if (p == s || strncmp(p, pre, sizeof pre - 1) != 0)
        return 0;
    p += sizeof pre - 1;
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ')')
        return 0;
    const char *end = s + n - 1, *d = end; /* the table id: digits before ')' */
    while (d > p && g_ascii_isdigit(d[-1]))
        d--;
    if (d == end || (size_t)(d - p) < sizeof suf - 1)
        return 0;
    const char *sufp = d - (sizeof suf - 1);
    if (strncmp(sufp, suf, sizeof suf - 1) != 0)
        return 0;
    /* " @N" just before the suffix, and ") -> value (" after " @N" between */
    const char *q = sufp;
    while (q > p && g_ascii_isdigit(q[-1]))
        q--;
    if (q == sufp || q - p < 2 || q[-1] != '@' || q[-2] != ' ')
        return 0;
    bool mid_ok = false;
    for (const char *m = strstr(p, mid); m && m + sizeof mid - 1 <= q - 2;
         m = strstr(m + 1, mid)) {
        const char *a = m;
        while (a > p && g_ascii_isdigit(a[-1]))
            a--;
        if (a < m && a - p >= 2 && a[-1] == '@' && a[-2] == ' ') {
            mid_ok = true;
            break;
        }
    }
    return mid_ok ? g_ascii_strtoull(d, NULL, 10) : 0;
}

/* Whether internal edge e from node v is the WeakMap table's own edge. */
static bool table_edge(const v8_snap *sn, uint32_t v, uint32_t e, GHashTable *memo,
                       GString *tmp)
{
    uint32_t i = sn->ename[e];
    gpointer got;
    if (!g_hash_table_lookup_extended(memo, GUINT_TO_POINTER(i), NULL, &got)) {
        g_string_truncate(tmp, 0);
        v8_string(sn, i, tmp);
        uint64_t t = weakmap_table(tmp->str);
        uint64_t *slot = g_new(uint64_t, 1);
        *slot = t;
        g_hash_table_insert(memo, GUINT_TO_POINTER(i), slot);
        got = slot;
    }
    uint64_t table = *(uint64_t *)got;
    return table && table == sn->id[v];
}

static void essential_edges(v8_snap *sn, const uint8_t *page, GString *tmp)
{
    sn->essential = g_new0(uint8_t, (size_t)sn->n_edges / 8 + 1);
    GHashTable *memo = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (uint32_t v = 0; v < sn->n; v++) {
        for (uint32_t e = sn->first[v]; e < sn->first[v + 1]; e++) {
            uint32_t t = sn->eto[e];
            uint8_t ty = sn->etype[e];
            if (t == UINT32_MAX || ty == V8E_WEAK || t == v)
                continue;
            if (ty == V8E_INTERNAL && table_edge(sn, v, e, memo, tmp))
                continue;
            if (v != sn->root && (ty == V8E_SHORTCUT || (page[t] && !page[v])))
                continue;
            sn->essential[e >> 3] |= (uint8_t)(1u << (e & 7));
        }
    }
    g_hash_table_destroy(memo);
}

/* Marks what v reaches over essential edges (stack: room for n). */
static void walk(const v8_snap *sn, uint32_t v, uint8_t *seen, uint32_t *stack)
{
    uint32_t top = 0;
    stack[top++] = v;
    seen[v] = 1;
    while (top) {
        uint32_t w = stack[--top];
        for (uint32_t e = sn->first[w]; e < sn->first[w + 1]; e++) {
            uint32_t t = sn->eto[e];
            if (v8_essential(sn, e) && !seen[t]) {
                seen[t] = 1;
                stack[top++] = t;
            }
        }
    }
}

/* Nodes no essential edge reaches, and then, as DevTools does, each node
 * still not reached from the root or them (cycles of nodes holding one
 * another), one by one: all hang under the root. */
static void find_orphans(v8_snap *sn)
{
    uint8_t *seen = g_new0(uint8_t, sn->n);
    for (uint32_t e = 0; e < sn->n_edges; e++)
        if (v8_essential(sn, e))
            seen[sn->eto[e]] = 1;
    GArray *orph = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t v = 0; v < sn->n; v++)
        if (!seen[v] && v != sn->root)
            g_array_append_val(orph, v);
    memset(seen, 0, sn->n);
    uint32_t *stack = g_new(uint32_t, (size_t)sn->n + 1);
    walk(sn, sn->root, seen, stack);
    for (guint i = 0; i < orph->len; i++)
        if (!seen[g_array_index(orph, uint32_t, i)])
            walk(sn, g_array_index(orph, uint32_t, i), seen, stack);
    for (uint32_t v = 0; v < sn->n; v++)
        if (!seen[v])
            g_array_append_val(orph, v);
    g_free(stack);
    g_free(seen);
    sn->n_orphans = orph->len;
    sn->orphans = (uint32_t *)g_array_free(orph, FALSE);
}

bool v8_derive(hf_dump *d, v8_snap *sn)
{
    GString *tmp = g_string_new(NULL);
    v8_dom_state(sn);
    uint8_t *dom = g_new0(uint8_t, sn->n_strings + 1);
    sn->user_roots = sn->n && has_user_roots(sn, dom, tmp);
    uint8_t *page = sn->n ? page_owned(sn, dom, tmp) : g_new0(uint8_t, 1);
    shallow_sizes(sn, tmp);
    essential_edges(sn, page, tmp);
    find_orphans(sn);
    g_free(page);
    g_free(dom);
    g_string_free(tmp, TRUE);
    return true;
}
