/*
 * pprof.c - heap.pprof and stacks.folded writer (see pprof.h for the
 * formats and the exact name rules).
 *
 * Storage: frame names are interned once (hash name -> index, array of
 * names); a stack is a g_malloc'd array of name indices, [0] holding its
 * length, which is at once the key of the merge table and the sample's
 * stack.  Memory is one copy of each distinct name and each distinct stack.
 */
#include "decoders/pprof/pprof.h"

#include "decoders/core/model.h"

#include <inttypes.h>
#include <string.h>

typedef struct {
    uint32_t *stack; /* [0] = n, then n name indices, leaf first; owned by `merge` */
    hf_pprof_values v;
} sample;

struct hf_pprof {
    char *binary;
    char *kind;
    bool keep_lines;
    GHashTable *names_idx; /* char * (in names) -> index + 1 */
    GPtrArray *names;      /* char *, owned */
    GHashTable *merge;     /* uint32_t *stack (owned) -> sample index + 1 */
    GHashTable *own;       /* keep_lines: the stacks (owned), by pointer */
    GArray *samples;       /* sample */
    hf_pprof_values total;
};

guint hf_stack_hash(gconstpointer k)
{
    const uint32_t *s = k;
    guint h = 5381;
    for (uint32_t i = 0; i <= s[0]; i++)
        h = h * 33 + s[i];
    return h;
}

gboolean hf_stack_equal(gconstpointer a, gconstpointer b)
{
    const uint32_t *x = a, *y = b;
    return x[0] == y[0] && memcmp(x + 1, y + 1, x[0] * sizeof *x) == 0;
}

hf_pprof *hf_pprof_new(const char *binary)
{
    hf_pprof_opts o = {binary, NULL, false};
    return hf_pprof_new_opts(&o);
}

hf_pprof *hf_pprof_new_opts(const hf_pprof_opts *o)
{
    hf_pprof *p = g_new0(hf_pprof, 1);
    p->binary = g_strdup(o->binary && *o->binary ? o->binary : "heapfs");
    p->kind = g_strdup(o->kind && *o->kind ? o->kind : "heapprofile");
    p->keep_lines = o->keep_lines;
    p->names_idx = g_hash_table_new(g_str_hash, g_str_equal);
    p->names = g_ptr_array_new_with_free_func(g_free);
    p->merge = g_hash_table_new_full(hf_stack_hash, hf_stack_equal, g_free, NULL);
    p->own = g_hash_table_new_full(g_direct_hash, g_direct_equal, g_free, NULL);
    p->samples = g_array_new(FALSE, FALSE, sizeof(sample));
    return p;
}

void hf_pprof_free(hf_pprof *p)
{
    if (!p)
        return;
    g_hash_table_destroy(p->merge);
    g_hash_table_destroy(p->own);
    g_array_free(p->samples, TRUE);
    g_hash_table_destroy(p->names_idx);
    g_ptr_array_free(p->names, TRUE);
    g_free(p->binary);
    g_free(p->kind);
    g_free(p);
}

static uint32_t intern(hf_pprof *p, const char *name)
{
    gpointer v = g_hash_table_lookup(p->names_idx, name);
    if (v)
        return GPOINTER_TO_UINT(v) - 1;
    char *copy = g_strdup(name);
    g_ptr_array_add(p->names, copy);
    uint32_t idx = p->names->len - 1;
    g_hash_table_insert(p->names_idx, copy, GUINT_TO_POINTER(idx + 1));
    return idx;
}

static void values_add(hf_pprof_values *to, const hf_pprof_values *v)
{
    to->inuse_objects += v->inuse_objects;
    to->inuse_bytes += v->inuse_bytes;
    to->alloc_objects += v->alloc_objects;
    to->alloc_bytes += v->alloc_bytes;
}

void hf_pprof_add(hf_pprof *p, const char *const *frames, size_t n, const hf_pprof_values *v)
{
    static const char *const none[] = {"[no stack]"};
    if (n == 0 && !p->keep_lines) {
        frames = none;
        n = 1;
    }
    uint32_t *stack = g_new(uint32_t, n + 1);
    stack[0] = (uint32_t)n;
    for (size_t i = 0; i < n; i++)
        stack[i + 1] = intern(p, frames[i] ? frames[i] : "");
    values_add(&p->total, v);
    if (p->keep_lines) {
        /* The table then only owns the stacks (keys are unique pointers). */
        sample s = {stack, *v};
        g_array_append_val(p->samples, s);
        g_hash_table_add(p->own, stack);
        return;
    }
    gpointer found = g_hash_table_lookup(p->merge, stack);
    if (found) {
        values_add(&g_array_index(p->samples, sample, GPOINTER_TO_UINT(found) - 1).v, v);
        g_free(stack);
        return;
    }
    sample s = {stack, *v};
    g_array_append_val(p->samples, s);
    g_hash_table_insert(p->merge, stack, GUINT_TO_POINTER(p->samples->len));
}

void hf_pprof_totals(const hf_pprof *p, hf_pprof_values *out)
{
    *out = p->total;
}

size_t hf_pprof_n_stacks(const hf_pprof *p)
{
    return p->samples->len;
}

size_t hf_pprof_n_frames(const hf_pprof *p)
{
    return p->names->len;
}

const char *hf_pprof_kind(const hf_pprof *p)
{
    return p->kind;
}

const char *hf_pprof_binary(const hf_pprof *p)
{
    return p->binary;
}

const char *hf_pprof_frame(const hf_pprof *p, size_t i)
{
    return g_ptr_array_index(p->names, i);
}

void hf_pprof_sample(const hf_pprof *p, size_t i, const uint32_t **frames, size_t *n,
                     hf_pprof_values *v)
{
    const sample *s = &g_array_index(p->samples, sample, i);
    *frames = s->stack + 1;
    *n = s->stack[0];
    *v = s->v;
}

/* Where a "<" opens a Java-style special name (<init>): at the start or
 * after a '.'; returns the matching '>' or NULL. */
static const char *special_close(const char *start, const char *lt)
{
    if (lt != start && lt[-1] != '.')
        return NULL;
    for (const char *q = lt + 1; *q; q++) {
        if (*q == '>')
            return q;
        if (*q == '<')
            return NULL;
    }
    return NULL;
}

void hf_pprof_append_symbol(GString *out, const char *name)
{
    /* Trim surrounding spaces (and control characters, which become spaces). */
    const char *s = name, *e = name + strlen(name);
    while (s < e && (unsigned char)*s <= ' ')
        s++;
    while (e > s && (unsigned char)e[-1] <= ' ')
        e--;
    if (s == e) {
        g_string_append(out, "[unnamed]");
        return;
    }
    const char *close = NULL;
    for (const char *q = s; q < e; q++) {
        unsigned char c = (unsigned char)*q;
        if (c < ' ' || c == 0x7f) {
            g_string_append_c(out, ' ');
        } else if (c == '-' && q + 1 < e && q[1] == '-') {
            g_string_append(out, "- ");
        } else if (c == '<' && !close && (close = special_close(s, q)) && close < e) {
            g_string_append_c(out, '[');
        } else if (q == close) {
            g_string_append_c(out, ']');
            close = NULL;
        } else {
            g_string_append_c(out, (char)c);
        }
    }
}

void hf_pprof_append_folded_frame(GString *out, const char *name)
{
    for (const char *q = name; *q; q++) {
        unsigned char c = (unsigned char)*q;
        if (c == ';')
            g_string_append_c(out, ':');
        else if (c < ' ' || c == 0x7f)
            g_string_append_c(out, ' ');
        else
            g_string_append_c(out, (char)c);
    }
    if (!*name)
        g_string_append(out, "[unnamed]");
}

static uint64_t frame_addr(uint32_t idx)
{
    return HF_PPROF_ADDR_BASE + (uint64_t)HF_PPROF_ADDR_STEP * idx;
}

static void render_item(const hf_pprof *p, uint64_t item, GString *out)
{
    uint64_t nf = p->names->len;
    if (item == 0) {
        g_string_append(out, "--- symbol\nbinary=");
        /* One line: the binary name must not break the section. */
        for (const char *q = p->binary; *q; q++)
            g_string_append_c(out, (unsigned char)*q < ' ' ? ' ' : *q);
        g_string_append_c(out, '\n');
    } else if (item <= nf) {
        g_string_append_printf(out, "0x%016" PRIx64 " ", frame_addr((uint32_t)(item - 1)));
        hf_pprof_append_symbol(out, g_ptr_array_index(p->names, item - 1));
        g_string_append_c(out, '\n');
    } else if (item == nf + 1) {
        const hf_pprof_values *t = &p->total;
        g_string_append_printf(out,
                               "---\nheap profile: %6" PRIu64 ": %8" PRIu64 " [%6" PRIu64
                               ": %8" PRIu64 "] @ %s\n",
                               t->inuse_objects, t->inuse_bytes, t->alloc_objects,
                               t->alloc_bytes, p->kind);
    } else {
        const sample *s = &g_array_index(p->samples, sample, item - nf - 2);
        g_string_append_printf(out, "%6" PRIu64 ": %8" PRIu64 " [%6" PRIu64 ": %8" PRIu64 "] @",
                               s->v.inuse_objects, s->v.inuse_bytes, s->v.alloc_objects,
                               s->v.alloc_bytes);
        for (uint32_t i = 1; i <= s->stack[0]; i++)
            g_string_append_printf(out, " 0x%016" PRIx64, frame_addr(s->stack[i]));
        g_string_append_c(out, '\n');
    }
}

uint64_t hf_pprof_render(const hf_pprof *p, uint64_t first, GString *out, size_t budget)
{
    uint64_t n_items = (uint64_t)p->names->len + 2 + p->samples->len;
    size_t start = out->len;
    for (uint64_t item = first; item < n_items; item++) {
        render_item(p, item, out);
        if (out->len - start >= budget && item + 1 < n_items)
            return item + 1;
    }
    return HF_DONE;
}

uint64_t hf_pprof_pick(const hf_pprof_values *v, hf_pprof_which which)
{
    switch (which) {
    case HF_PPROF_INUSE_OBJECTS: return v->inuse_objects;
    case HF_PPROF_INUSE_BYTES: return v->inuse_bytes;
    case HF_PPROF_ALLOC_OBJECTS: return v->alloc_objects;
    case HF_PPROF_ALLOC_BYTES: return v->alloc_bytes;
    }
    return 0;
}

uint64_t hf_pprof_render_folded(const hf_pprof *p, hf_pprof_which which, uint64_t first,
                                GString *out, size_t budget)
{
    size_t start = out->len;
    for (uint64_t item = first; item < p->samples->len; item++) {
        const sample *s = &g_array_index(p->samples, sample, item);
        uint64_t value = hf_pprof_pick(&s->v, which);
        if (value) {
            /* Root first: the stack is stored leaf first. */
            if (s->stack[0] == 0)
                g_string_append(out, "[no stack] ");
            for (uint32_t i = s->stack[0]; i >= 1; i--) {
                hf_pprof_append_folded_frame(out, g_ptr_array_index(p->names, s->stack[i]));
                g_string_append_c(out, i > 1 ? ';' : ' ');
            }
            g_string_append_printf(out, "%" PRIu64 "\n", value);
        }
        if (out->len - start >= budget && item + 1 < p->samples->len)
            return item + 1;
    }
    return HF_DONE;
}
