/* heap.c - the objects of the heap, and the facts about samples: see hprofgen.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hprofgen.h"

static const uint8_t prim_types[] = {T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE,
                                     T_SHORT, T_INT, T_LONG};

/* text for Strings; some with Latin-1 and non-Latin-1 letters */
static const char *const text_words[] = {
    "order", "shipped", "to", "Berlin", "invoice", "paid", "user", "login", "failed",
    "retry", "cache", "miss", "hit", "session", "expired", "request", "GET", "POST",
    "/api/v1/items", "status=200", "status=404", "error", "timeout", "connection", "reset",
    "café", "naïve", "Zürich", "São Paulo", "Ångström",
};
static const char *const wide_words[] = {"Привет", "мир", "日本語", "東京", "Ελλάδα", "λόγος",
                                         "한국어", "שלום"};

static const char *type_name(unsigned t)
{
    switch (t) {
    case T_OBJECT: return "object"; case T_BOOLEAN: return "boolean"; case T_CHAR: return "char";
    case T_FLOAT: return "float"; case T_DOUBLE: return "double"; case T_BYTE: return "byte";
    case T_SHORT: return "short"; case T_INT: return "int"; default: return "long";
    }
}

/* ---- facts ---- */

static void fact_value(gen *g, unsigned t, uint64_t v)
{
    FILE *f = g->facts;
    switch (t) {
    case T_OBJECT:
        if (v)
            fprintf(f, "0x%" PRIx64, v);
        else
            fputs("null", f);
        break;
    case T_BOOLEAN: fputs(v ? "true" : "false", f); break;
    case T_CHAR:
        if (v > 0x20 && v < 0x7f && v != '\\' && v != '\'')
            fprintf(f, "'%c'", (char)v);
        else
            fprintf(f, "'\\u%04x'", (unsigned)v);
        break;
    case T_FLOAT: {
        /* as heapfs: the shortest of %.6g .. %.9g that reads back */
        uint32_t b = (uint32_t)v;
        float x;
        memcpy(&x, &b, 4);
        char buf[64];
        for (int prec = 6; prec <= 9; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, (double)x);
            if (strtof(buf, NULL) == x)
                break;
        }
        fputs(buf, f);
        break;
    }
    case T_DOUBLE: {
        double x;
        memcpy(&x, &v, 8);
        fprintf(f, "%.17g", x); /* values are k/8: exact, so also the shortest */
        break;
    }
    case T_BYTE: fprintf(f, "%d", (int8_t)v); break;
    case T_SHORT: fprintf(f, "%d", (int16_t)v); break;
    case T_INT: fprintf(f, "%d", (int32_t)v); break;
    default: fprintf(f, "%" PRId64, (int64_t)v); break;
    }
}

/* ---- the heap ---- */

/* The next object, size bytes in the JVM's memory. */
static uint64_t place(gen *g, uint64_t size)
{
    uint64_t r = g->next_rel;
    g->next_rel += size;
    g->n_heap++;
    return r;
}

void count_object(gen *g, uint32_t ki, uint64_t size)
{
    if (g->writing) {
        g->k[ki].count++;
        g->k[ki].bytes += size;
    }
}

/* Object rel waits for a referrer. */
static void q_push(gen *g, uint64_t rel)
{
    if (g->writing)
        g->q[(g->q_head + g->q_count) % g->qcap] = rel;
    g->q_count++;
}
static uint64_t q_pop(gen *g)
{
    uint64_t r = g->writing ? g->q[g->q_head] : NONE;
    g->q_head = (g->q_head + 1) % g->qcap;
    g->q_count--;
    return r;
}

/* Object rel may be the target of random references. */
static void eligible(gen *g, uint64_t rel)
{
    if (g->writing) {
        g->recent[g->n_recent++ % RECENT] = rel;
        return;
    }
    /* the first pass samples the whole heap (algorithm R) */
    uint64_t i = g->n_eligible++;
    if (i < RESERVOIR)
        g->res[g->n_res++] = rel;
    else if ((i = below(&g->rs_sample, i + 1)) < RESERVOIR)
        g->res[i] = rel;
}

/* A random reference: null, a recent object or one from anywhere. */
static uint64_t random_target(gen *g)
{
    uint64_t u = splitmix64(&g->rs_content);
    unsigned pick = (unsigned)(u % 100);
    if (pick < 25)
        return 0;
    if (pick < 60 && g->n_recent) {
        uint64_t n = g->n_recent < RECENT ? g->n_recent : RECENT;
        return addr(g, g->recent[(u >> 8) % n]);
    }
    return g->n_res ? addr(g, g->res[(u >> 8) % g->n_res]) : 0;
}

/* A random value of type t (not a reference), as HPROF stores it. */
uint64_t random_value(gen *g, unsigned t)
{
    uint64_t r = splitmix64(&g->rs_content);
    switch (t) {
    case T_BOOLEAN: return r & 1;
    case T_CHAR: return 'a' + r % 26;
    case T_FLOAT: {
        float x = (float)((int32_t)(r % 2000001) - 1000000) / 4; /* exact */
        uint32_t b;
        memcpy(&b, &x, 4);
        return b;
    }
    case T_DOUBLE: {
        double x = (double)((int64_t)(r % 2000000001) - 1000000000) / 8; /* exact */
        uint64_t b;
        memcpy(&b, &x, 8);
        return b;
    }
    case T_BYTE: return r & 0xff;
    case T_SHORT: return r & 0xffff;
    case T_INT: return (uint32_t)((int32_t)(r % 200001) - 100000);
    default: return r;
    }
}

/* Instance of class ki; values[i] of the chain's fields in dump order
 * (own first, then the super class's, up the chain), from fill(). */
typedef uint64_t (*value_fn)(gen *g, unsigned t, uint32_t i, void *ud);

static uint64_t emit_instance(gen *g, uint32_t ki, value_fn fill, void *ud, bool sample)
{
    const klass *k = &g->k[ki];
    uint64_t rel = place(g, k->shallow);
    sub_begin(g, 25 + k->dump);
    if (!g->writing)
        return rel;
    count_object(g, ki, k->shallow);
    uint64_t id = addr(g, rel);
    uint8_t *p = room(g, 25 + k->dump);
    p = be4(be8(be4(be8(be1(p, 0x21), id), 1), addr(g, k->rel)), k->dump);
    if (sample)
        fprintf(g->facts, "object 0x%" PRIx64 " %s %" PRIu64 "\n", id, k->display, k->shallow);
    uint32_t i = 0;
    for (int c = (int)ki; c != K_OBJECT && c >= 0; c = g->k[c].super) {
        for (uint32_t f = 0; f < g->k[c].nf; f++, i++) {
            const field *fd = &g->fields[g->k[c].f0 + f];
            uint64_t v = fill(g, fd->type, i, ud);
            p = ben(p, v, dump_width(fd->type));
            if (sample) {
                fprintf(g->facts, "field 0x%" PRIx64 " %s %s ", id, fd->name, type_name(fd->type));
                fact_value(g, fd->type, v);
                fputc('\n', g->facts);
            }
        }
    }
    commit(g, p);
    return rel;
}

/* generated instances: the first reference field takes a waiting object */
typedef struct {
    uint64_t first; /* absolute address for the first reference field, or NONE */
    bool used;
} gen_fill;

static uint64_t fill_generated(gen *g, unsigned t, uint32_t i, void *ud)
{
    gen_fill *f = ud;
    if (t != T_OBJECT)
        return random_value(g, t);
    if (f->first != NONE && !f->used) {
        f->used = true;
        return f->first;
    }
    return random_target(g);
}

static void emit_generated(gen *g, uint32_t ki)
{
    bool pop = g->k[ki].nrefs > 0 && g->q_count > 0;
    gen_fill f = {NONE, false};
    if (pop) {
        uint64_t r = q_pop(g);
        f.first = g->writing ? addr(g, r) : NONE;
    }
    bool sample = g->writing && g->facts && g->n_samples < N_SAMPLES && g->slot >= 100 &&
                  g->k[ki].depth >= 1 && g->k[ki].nrefs > 0;
    g->n_samples += sample;
    g->n_inst++;
    uint64_t rel = emit_instance(g, ki, fill_generated, &f, sample);
    q_push(g, rel);
    eligible(g, rel);
}

/* values given in order */
static uint64_t fill_list(gen *g, unsigned t, uint32_t i, void *ud)
{
    return ((const uint64_t *)ud)[i];
}

static uint64_t emit_objarray(gen *g, uint32_t ki, uint64_t n, uint64_t npop)
{
    if (npop > g->q_count)
        npop = g->q_count;
    if (npop > n)
        npop = n;
    uint64_t size = align8(16 + 4 * n), len = 25 + 8 * n;
    uint64_t rel = place(g, size);
    sub_begin(g, len);
    g->n_objarr++;
    if (!g->writing) {
        g->q_count -= npop;
        g->q_head = (g->q_head + npop) % g->qcap;
        return rel;
    }
    count_object(g, ki, size);
    uint8_t *p = room(g, 25);
    commit(g, be8(be4(be4(be8(be1(p, 0x22), addr(g, rel)), 1), n), addr(g, g->k[ki].rel)));
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = i < npop ? addr(g, q_pop(g)) : random_target(g);
        commit(g, be8(room(g, 8), v));
    }
    return rel;
}

static uint32_t prim_class(unsigned t)
{
    for (uint32_t i = 0; i < 8; i++)
        if (prim_types[i] == t)
            return K_BOOLARR + i;
    return K_BYTEARR;
}

/* A primitive array of n elements of type t: text from data when given
 * (n bytes), else random elements (byte[] and char[]: letters). */
static uint64_t emit_primarray(gen *g, unsigned t, uint64_t n, const uint8_t *data)
{
    unsigned w = dump_width(t);
    uint64_t size = align8(16 + n * w), len = 18 + n * w;
    uint64_t rel = place(g, size);
    sub_begin(g, len);
    g->n_primarr++;
    if (!g->writing)
        return rel;
    count_object(g, prim_class(t), size);
    uint8_t *p = room(g, 18);
    commit(g, be1(be4(be4(be8(be1(p, 0x23), addr(g, rel)), 1), n), t));
    if (data) {
        for (uint64_t i = 0; i < n;) {
            size_t c = n - i < BUF_SIZE / 2 ? (size_t)(n - i) : BUF_SIZE / 2;
            memcpy(room(g, c), data + i, c);
            g->blen += c;
            i += c;
        }
        return rel;
    }
    uint64_t total = n * w;
    for (uint64_t i = 0; i < total;) {
        size_t c = total - i < 65536 ? (size_t)(total - i) : 65536;
        p = room(g, c);
        for (size_t j = 0; j < c; j += 8) {
            uint64_t r = splitmix64(&g->rs_content);
            if (t == T_BYTE || t == T_CHAR || t == T_BOOLEAN) {
                /* letters; char[]: big-endian u2 'a'..'z', boolean[]: 0/1 */
                for (size_t b = 0; b < 8 && j + b < c; b++) {
                    uint8_t x = (uint8_t)(r >> (8 * b));
                    p[j + b] = t == T_BYTE ? (uint8_t)('a' + x % 26)
                               : t == T_BOOLEAN ? (x & 1)
                               : (b & 1) ? (uint8_t)('a' + x % 26) : 0;
                }
            } else {
                uint8_t tmp[8];
                be8(tmp, r);
                if (t == T_FLOAT || t == T_DOUBLE)
                    tmp[0] = 0x40; /* finite, moderate values */
                memcpy(p + j, tmp, c - j < 8 ? c - j : 8);
            }
        }
        commit(g, p + c);
        i += c;
    }
    return rel;
}

/* Text for a String of n chars: code points into cp. */
static void make_text(gen *g, uint32_t *cp, uint32_t n, bool wide)
{
    uint32_t i = 0;
    while (i < n) {
        uint64_t r = splitmix64(&g->rs_content);
        /* UTF-16 only when needed, as Java: a wide String starts with a wide word */
        const char *w = wide && (i == 0 || r % 3 == 0) ? wide_words[(r >> 8) % 8]
                                            : text_words[(r >> 8) % (sizeof text_words / sizeof *text_words)];
        if (i)
            cp[i++] = r & 0x100000 ? '-' : ' ';
        /* decode UTF-8 */
        for (const unsigned char *s = (const unsigned char *)w; *s && i < n;) {
            uint32_t c = *s++;
            if (c >= 0xE0)
                c = (c & 0x0F) << 12 | (s[0] & 0x3Fu) << 6 | (s[1] & 0x3Fu), s += 2;
            else if (c >= 0xC0)
                c = (c & 0x1F) << 6 | (s[0] & 0x3Fu), s += 1;
            cp[i++] = c;
        }
    }
}

static void fact_utf8(FILE *f, const uint32_t *cp, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = cp[i];
        if (c < 0x80)
            fputc((int)c, f);
        else if (c < 0x800)
            fputc((int)(0xC0 | c >> 6), f), fputc((int)(0x80 | (c & 0x3F)), f);
        else
            fputc((int)(0xE0 | c >> 12), f), fputc((int)(0x80 | (c >> 6 & 0x3F)), f),
                fputc((int)(0x80 | (c & 0x3F)), f);
    }
}

/* A java.lang.String: its byte[] value (Latin-1, or UTF-16LE with coder 1),
 * then the String.  fixed: the text, else n random chars. */
static uint64_t emit_string(gen *g, uint32_t n, bool wide, const char *fixed)
{
    static uint32_t cp[MAX_TEXT];
    static uint8_t bytes[2 * MAX_TEXT];
    uint32_t blen = wide ? 2 * n : n;
    int32_t hash = 0;
    if (g->writing) {
        if (fixed) {
            for (uint32_t i = 0; i < n; i++)
                cp[i] = (unsigned char)fixed[i];
        } else {
            make_text(g, cp, n, wide);
        }
        if (!wide)
            for (uint32_t i = 0; i < n; i++)
                if (cp[i] > 0xFF)
                    cp[i] = '?';
        for (uint32_t i = 0; i < n; i++) {
            hash = (int32_t)((uint32_t)hash * 31u + cp[i]);
            if (wide)
                bytes[2 * i] = (uint8_t)cp[i], bytes[2 * i + 1] = (uint8_t)(cp[i] >> 8);
            else
                bytes[i] = (uint8_t)cp[i];
        }
    }
    uint64_t vrel = emit_primarray(g, T_BYTE, blen, bytes);
    uint64_t v[4] = {addr(g, vrel), (uint32_t)hash, wide, hash == 0};
    bool sample = g->writing && g->facts && !fixed && g->slot >= 10 &&
                  !(wide ? g->utf16_seen : g->latin_seen);
    g->n_inst++;
    g->n_strings++;
    uint64_t rel = emit_instance(g, K_STRING, fill_list, v, false);
    if (sample) {
        *(wide ? &g->utf16_seen : &g->latin_seen) = true;
        fprintf(g->facts, "string 0x%" PRIx64 " %s ", addr(g, rel), wide ? "UTF16" : "LATIN1");
        fact_utf8(g->facts, cp, n);
        fputc('\n', g->facts);
    }
    return rel;
}

static void emit_chain_node(gen *g)
{
    uint64_t v[3] = {addr(g, g->chain_prev), g->chain_len, 0};
    if (g->writing)
        v[2] = splitmix64(&g->rs_content);
    bool sample = g->writing && g->facts && g->chain_len == 0;
    g->n_inst++;
    uint64_t rel = emit_instance(g, K_CHAIN, fill_list, v, sample);
    if (g->chain_len == 0)
        g->chain_tail = rel;
    g->chain_prev = rel;
    g->chain_len++;
}

/* The overflow of the waiting queue: an Object[] (like a collection's
 * backing array) takes n waiting objects. */
static void emit_holder(gen *g, uint64_t n)
{
    uint64_t rel = emit_objarray(g, K_OBJARR, n, n);
    q_push(g, rel);
}

static bool done(const gen *g)
{
    return (g->n_target && g->n_heap >= g->n_target) ||
           (g->size_target && g->off >= g->size_target);
}

static uint64_t fill_zero(gen *g, unsigned t, uint32_t i, void *ud)
{
    return 0;
}

/* Every object, in ascending address order. */
void heap_objects(gen *g)
{
    for (uint32_t i = 0; i < N_PRIM_MIRRORS; i++) {
        g->n_inst++;
        q_push(g, emit_instance(g, K_CLASS, fill_zero, NULL, false));
    }
    g->main_str_rel = emit_string(g, 4, false, "main");
    uint64_t tv[5] = {addr(g, g->main_str_rel), 1, 5, 0, 5};
    g->n_inst++;
    g->thread_rel = emit_instance(g, K_THREAD, fill_list, tv, g->writing && g->facts);

    for (g->slot = 0; !done(g); g->slot++) {
        if (g->q_count >= g->qcap)
            emit_holder(g, g->qcap / 2);
        uint64_t u = splitmix64(&g->rs_shape);
        if ((u & 0xFFF) == 0x5A5)
            g->next_rel += 8 * (1 + (u >> 12) % 64); /* dead space, as between TLABs */
        u >>= 20;
        if (g->slot % BIG_EVERY == 1000) {
            static const uint8_t bt[4] = {T_BYTE, T_BYTE, T_LONG, T_INT};
            unsigned t = bt[u % 4];
            uint64_t bytes = ((u >> 2) % (7u << 20)) + (1u << 20);
            uint64_t rel = emit_primarray(g, t, bytes / dump_width(t), NULL);
            if (g->big_prim_rel == NONE)
                g->big_prim_rel = rel;
            q_push(g, rel);
            continue;
        }
        if (g->slot % BIG_EVERY == 2000) {
            uint64_t n = 100000 + (u >> 2) % 100000;
            uint64_t rel = emit_objarray(g, K_OBJARR, n, n / 2);
            if (g->big_obj_rel == NONE)
                g->big_obj_rel = rel;
            q_push(g, rel);
            continue;
        }
        unsigned kind = (unsigned)(u % 1000);
        u /= 1000;
        if (kind < 1000 / CHAIN_EVERY) {
            emit_chain_node(g);
        } else if (kind < 200) {
            /* String: mostly short; some long; one in 20 UTF-16 */
            unsigned lk = (unsigned)(u % 100);
            uint32_t n = lk < 90 ? 4 + (uint32_t)((u >> 7) % 16)
                         : lk < 99 ? 24 + (uint32_t)((u >> 7) % 80)
                                   : 100 + (uint32_t)((u >> 7) % (MAX_TEXT - 100));
            bool wide = (u >> 20) % 20 == 0;
            uint64_t rel = emit_string(g, n, wide, NULL);
            q_push(g, rel);
            eligible(g, rel);
        } else if (kind < 240) {
            uint64_t n = (u >> 1) % 17;
            uint64_t rel = emit_objarray(g, u % 10 < 7 ? K_OBJARR : K_STRARR, n, (n + 1) / 2);
            q_push(g, rel);
            eligible(g, rel);
        } else if (kind < 400) {
            static const uint8_t pt[20] = {T_BYTE, T_BYTE, T_BYTE, T_BYTE, T_BYTE, T_BYTE,
                                           T_INT, T_INT, T_INT, T_INT, T_CHAR, T_CHAR,
                                           T_CHAR, T_LONG, T_LONG, T_LONG, T_DOUBLE,
                                           T_FLOAT, T_SHORT, T_BOOLEAN};
            uint64_t rel = emit_primarray(g, pt[u % 20], (u >> 5) % 17, NULL);
            q_push(g, rel);
            eligible(g, rel);
        } else {
            uint32_t c = u % 2 ? (uint32_t)((u >> 1) % g->n_gen)
                               : (uint32_t)((u >> 1) % (g->n_gen < 8 ? g->n_gen : 8));
            emit_generated(g, K_GEN0 + c);
        }
    }
    /* what still waits: one Object[] held by a JNI global */
    g->holder_rel = emit_objarray(g, K_OBJARR, g->q_count, g->q_count);
}
