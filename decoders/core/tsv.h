/*
 * tsv.h - writing the tables (the tables/ files, classes/NAME/table.tsv), and
 * counting their bytes without writing them (docs/tables.md).
 *
 * The convention: a header row of column names, one row per line, TAB
 * between columns, no padding; integers plain (no '+', no separators);
 * ids spelled as objects/ names them (0x + lower-case hex); an empty
 * column for "none"; in text, TAB, newline, CR, backslash and NUL written
 * \t, \n, \r, \\ and \0, so a row is one line whatever the text holds
 * (other bytes, UTF-8 or not, pass through).
 *
 * Every append has a _len twin giving the bytes it appends, so a table's
 * measure (model.h hf_measure_fn) and its renderer cannot disagree.
 * Pure and thread-safe.
 */
#ifndef HF_TSV_H
#define HF_TSV_H

#include "decoders/core/model.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Decimal digits of v (1 for 0), by comparisons: no division. */
static inline unsigned hf_tsv_u64_len(uint64_t v)
{
    static const uint64_t p10[19] = {
        UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
        UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
        UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
        UINT64_C(10000000000000), UINT64_C(100000000000000), UINT64_C(1000000000000000),
        UINT64_C(10000000000000000), UINT64_C(100000000000000000),
        UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};
    unsigned n = 1;
    while (n < 20 && v >= p10[n - 1])
        n++;
    return n;
}

static inline unsigned hf_tsv_i64_len(int64_t v)
{
    return v < 0 ? 1 + hf_tsv_u64_len(-(uint64_t)v) : hf_tsv_u64_len((uint64_t)v);
}

/* "0x" + lower-case hex digits of id (HF_FMT_ID). */
static inline unsigned hf_tsv_id_len(uint64_t id)
{
    return 2 + (id ? (unsigned)(67 - __builtin_clzll(id)) / 4 : 1);
}

/* Room for `need` more bytes at the end of out (its str grows, its len
 * does not): the writers below write in place, no call per byte. */
static inline char *hf_tsv_room(GString *out, size_t need)
{
    if (G_UNLIKELY(out->len + need >= out->allocated_len)) {
        gsize len = out->len;
        g_string_set_size(out, len + need);
        g_string_truncate(out, len);
    }
    return out->str + out->len;
}

static inline void hf_tsv_grew(GString *out, size_t n)
{
    out->len += n;
    out->str[out->len] = '\0';
}

static inline void hf_tsv_u64(GString *out, uint64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";
    unsigned n = hf_tsv_u64_len(v), i = n;
    char *p = hf_tsv_room(out, 21);
    while (v >= 100) {
        unsigned k = (unsigned)(v % 100) * 2;
        v /= 100;
        p[--i] = pairs[k + 1];
        p[--i] = pairs[k];
    }
    if (v >= 10) {
        p[--i] = pairs[v * 2 + 1];
        p[--i] = pairs[v * 2];
    } else {
        p[--i] = (char)('0' + v);
    }
    hf_tsv_grew(out, n);
}

static inline void hf_tsv_i64(GString *out, int64_t v)
{
    if (v < 0) {
        g_string_append_c(out, '-');
        hf_tsv_u64(out, -(uint64_t)v);
    } else {
        hf_tsv_u64(out, (uint64_t)v);
    }
}

static inline void hf_tsv_id(GString *out, uint64_t id)
{
    unsigned n = hf_tsv_id_len(id);
    char *p = hf_tsv_room(out, 19);
    p[0] = '0';
    p[1] = 'x';
    for (unsigned i = n; i-- > 2; id >>= 4)
        p[i] = "0123456789abcdef"[id & 15];
    hf_tsv_grew(out, n);
}

/* An id, or nothing for 0 (null, none). */
static inline void hf_tsv_id_or_empty(GString *out, uint64_t id)
{
    if (id)
        hf_tsv_id(out, id);
}
static inline unsigned hf_tsv_id_or_empty_len(uint64_t id)
{
    return id ? hf_tsv_id_len(id) : 0;
}
/* Text, escaped. */
void hf_tsv_text(GString *out, const char *s, size_t n);
size_t hf_tsv_text_len(const char *s, size_t n);
/* A header row: the names given, TAB between them, and a newline. */
void hf_tsv_header(GString *out, const char *const *names, unsigned n);
size_t hf_tsv_header_len(const char *const *names, unsigned n);

/*
 * Where rows go: appended to `out`, or, with out NULL, only counted in n.
 * A table writes its rows once, through these, for both its renderer and
 * its measure (HF_TSV_VIEW), so the two cannot disagree.
 */
typedef struct {
    GString *out;
    uint64_t n;    /* bytes counted (out == NULL) */
    uint64_t stop; /* an item to stop at whatever the budget, 0: none */
} hf_tsv;

static inline uint64_t hf_tsv_pos(const hf_tsv *t)
{
    return t->out ? t->out->len : t->n;
}

/* Whether to stop before writing `item`: the render protocol's rule
 * (model.h hf_budget_spent) on a sink, or item is the sink's stop. */
static inline bool hf_tsv_stop(const hf_tsv *t, uint64_t start, size_t budget, uint64_t item)
{
    uint64_t pos = hf_tsv_pos(t);
    return (pos > start && pos - start >= budget) || (t->stop && item >= t->stop);
}

static inline void hf_tsv_c(hf_tsv *t, char c)
{
    if (t->out)
        g_string_append_c(t->out, c);
    else
        t->n++;
}

static inline void hf_tsv_put_u64(hf_tsv *t, uint64_t v)
{
    if (t->out)
        hf_tsv_u64(t->out, v);
    else
        t->n += hf_tsv_u64_len(v);
}

static inline void hf_tsv_put_i64(hf_tsv *t, int64_t v)
{
    if (t->out)
        hf_tsv_i64(t->out, v);
    else
        t->n += hf_tsv_i64_len(v);
}

static inline void hf_tsv_put_id(hf_tsv *t, uint64_t id)
{
    if (t->out)
        hf_tsv_id(t->out, id);
    else
        t->n += hf_tsv_id_len(id);
}

/* An id, empty for 0. */
static inline void hf_tsv_put_id0(hf_tsv *t, uint64_t id)
{
    if (id)
        hf_tsv_put_id(t, id);
}

static inline void hf_tsv_put_text(hf_tsv *t, const char *s, size_t n)
{
    if (t->out)
        hf_tsv_text(t->out, s, n);
    else
        t->n += hf_tsv_text_len(s, n);
}

static inline void hf_tsv_put_str(hf_tsv *t, const char *s)
{
    hf_tsv_put_text(t, s, strlen(s));
}

static inline void hf_tsv_put_header(hf_tsv *t, const char *const *names, unsigned n)
{
    if (t->out)
        hf_tsv_header(t->out, names, n);
    else
        t->n += hf_tsv_header_len(names, n);
}

/*
 * The renderer NAME_view (model.h hf_render_fn) of a table whose rows ROWS
 * writes, an hf_tsv_rows_fn:
 *   uint64_t ROWS(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
 *                 size_t budget)   (the render protocol, on a sink)
 */
typedef uint64_t (*hf_tsv_rows_fn)(hf_dump *d, const hf_view *v, uint64_t first, hf_tsv *t,
                                   size_t budget);
#define HF_TSV_RENDER(NAME, ROWS)                                                          \
    uint64_t NAME##_view(hf_dump *d, const hf_view *v, uint64_t first, GString *out,       \
                         size_t budget)                                                    \
    {                                                                                      \
        hf_tsv t = {out, 0, 0};                                                            \
        return ROWS(d, v, first, &t, budget);                                              \
    }

/* NAME_view and its measure NAME_measure (model.h hf_measure_fn), which
 * counts what ROWS writes, row by row. */
#define HF_TSV_VIEW(NAME, ROWS)                                                            \
    HF_TSV_RENDER(NAME, ROWS)                                                              \
    uint64_t NAME##_measure(hf_dump *d, const hf_view *v, uint64_t first, uint64_t *bytes, \
                            size_t budget)                                                 \
    {                                                                                      \
        hf_tsv t = {NULL, 0, 0};                                                           \
        uint64_t next = ROWS(d, v, first, &t, budget);                                     \
        *bytes += t.n;                                                                     \
        return next;                                                                       \
    }

#endif
