/*
 * read.c - lines and tokens of an .oemp recording (see oemp.h).
 * The bottom of the folder's call order: calls no other file of it.
 *
 * The profiler writes its data with ABL's EXPORT conventions: columns
 * separated by spaces, numbers bare ("22.45", and ABL writes ".5" for 0.5),
 * strings in double quotes with a quote inside doubled (""), and the unknown
 * value as a bare ?.  One data item is one line; a line holding a single
 * '.' ends a section.
 *
 * Decisions for bad input: a quoted string never spans lines (a quote left
 * open gives an OEMP_BAD token, so the damage stays on its line); bytes glued
 * to a closing quote make the token OEMP_BAD; CR before LF is white space
 * (recordings written on Windows).
 *
 * Pure functions over the caller's buffer; thread-safe.
 */
#include "decoders/oemp/oemp.h"
#include "decoders/core/names.h"

#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* -?(digits[.digits*] | .digits) */
static bool is_number(const char *p, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && p[i] == '-')
        i++;
    while (i < len && p[i] >= '0' && p[i] <= '9')
        i++, digits++;
    if (i < len && p[i] == '.') {
        i++;
        while (i < len && p[i] >= '0' && p[i] <= '9')
            i++, digits++;
    }
    return digits > 0 && i == len;
}

/* Scans a quoted string starting at p[i] == '"' within p[0..len); sets the
 * token and returns the index just after it. */
static size_t scan_string(const char *p, size_t len, size_t i, oemp_tok *t)
{
    size_t j = i + 1;
    t->p = p + j;
    t->kind = OEMP_BAD;
    t->doubled = false;
    while (j < len) {
        const char *q = memchr(p + j, '"', len - j);
        if (!q)
            break;
        j = (size_t)(q - p);
        if (j + 1 < len && p[j + 1] == '"') {
            t->doubled = true;
            j += 2;
            continue;
        }
        t->len = (uint32_t)(j - (i + 1));
        j++;
        if (j < len && !is_space(p[j])) {
            /* "abc"def: keep the bad token up to the next space */
            while (j < len && !is_space(p[j]))
                j++;
            t->len = (uint32_t)(j - (i + 1));
            return j;
        }
        t->kind = OEMP_STR;
        return j;
    }
    t->len = (uint32_t)(len - (i + 1)); /* left open */
    return len;
}

bool oemp_read_record(const char *data, size_t size, uint64_t pos, oemp_rec *r)
{
    if (pos >= size)
        return false;
    const char *p = data + pos;
    size_t avail = size - pos;
    const char *nl = memchr(p, '\n', avail);
    size_t len = nl ? (size_t)(nl - p) : avail;
    r->off = pos;
    r->next = pos + len + (nl ? 1 : 0);
    r->cut = nl == NULL;
    r->ntok = 0;
    r->bad = false;
    size_t i = 0;
    while (i < len) {
        while (i < len && is_space(p[i]))
            i++;
        if (i >= len)
            break;
        oemp_tok t;
        if (p[i] == '"') {
            i = scan_string(p, len, i, &t);
        } else {
            size_t s = i;
            while (i < len && !is_space(p[i]))
                i++;
            t.p = p + s;
            t.len = (uint32_t)(i - s);
            t.doubled = false;
            if (t.len == 1 && p[s] == '?')
                t.kind = OEMP_UNK;
            else if (is_number(p + s, t.len))
                t.kind = OEMP_NUM;
            else
                t.kind = OEMP_WORD;
        }
        if (t.kind == OEMP_BAD)
            r->bad = true;
        if (r->ntok < OEMP_MAX_TOK)
            r->tok[r->ntok] = t;
        r->ntok++;
    }
    r->blank = r->ntok == 0;
    r->dot = r->ntok == 1 && r->tok[0].kind == OEMP_WORD && r->tok[0].len == 1 &&
             r->tok[0].p[0] == '.';
    return true;
}

bool oemp_tok_u64(const oemp_tok *t, uint64_t *v)
{
    if (t->kind != OEMP_NUM || t->len == 0 || t->p[0] == '-')
        return false;
    uint64_t x = 0;
    for (uint32_t i = 0; i < t->len; i++) {
        char c = t->p[i];
        if (c < '0' || c > '9')
            return false; /* a decimal */
        unsigned dgt = (unsigned)(c - '0');
        if (x > (UINT64_MAX - dgt) / 10)
            return false;
        x = x * 10 + dgt;
    }
    *v = x;
    return true;
}

bool oemp_tok_i64(const oemp_tok *t, int64_t *v)
{
    if (t->kind != OEMP_NUM || t->len == 0)
        return false;
    bool neg = t->p[0] == '-';
    oemp_tok u = *t;
    if (neg) {
        u.p++;
        u.len--;
    }
    uint64_t x;
    if (!oemp_tok_u64(&u, &x))
        return false;
    if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
        return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

void oemp_tok_append(const oemp_tok *t, GString *out)
{
    if (t->kind == OEMP_UNK) {
        g_string_append_c(out, '?');
        return;
    }
    if (!t->doubled) {
        g_string_append_len(out, t->p, t->len);
        return;
    }
    for (uint32_t i = 0; i < t->len; i++) {
        g_string_append_c(out, t->p[i]);
        if (t->p[i] == '"' && i + 1 < t->len && t->p[i + 1] == '"')
            i++;
    }
}

char *oemp_tok_dup(const oemp_tok *t)
{
    GString *s = g_string_sized_new(t->len + 1);
    oemp_tok_append(t, s);
    return g_string_free(s, FALSE);
}

void oemp_append_oneline(GString *out, const char *s, size_t len)
{
    hf_escape_text(out, s, len);
}
