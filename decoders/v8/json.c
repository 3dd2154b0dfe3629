/*
 * json.c - a focused scanner for the JSON of a V8 heap snapshot.
 *
 * Why not a general parser (Debian has libyajl-dev, a streaming one): the
 * file is one fixed shape, a small `snapshot` meta object, flat arrays of
 * integers (nodes, edges, trace data) and one array of strings, and what
 * heapfs needs of it differs from what a SAX parser hands out:
 *   - strings stay in the file: the scanner notes where each one starts
 *     and decodes it when a view asks (yajl decodes and hands over every
 *     string, so the string table, often the biggest part of a snapshot
 *     since it holds every script's source, would be copied into memory);
 *   - integers go straight into the decoder's columns, with no value and
 *     no callback per number;
 *   - every problem has its exact file offset, for `errors`.
 * Scanning a token, a number, skipping a value (nesting at most 64 deep)
 * and decoding a string is all it takes; every function here is pure and
 * never reads outside [start, end).
 */
#include "decoders/v8/v8.h"

#include <string.h>

#define DEPTH_MAX 64

bool v8_json_fail(v8_json *j, const char *what)
{
    if (!j->error) {
        j->error = what;
        j->error_at = (uint64_t)(j->p - j->start);
    }
    return false;
}

bool v8_json_expect(v8_json *j, char c)
{
    if (v8_json_accept(j, c))
        return true;
    if (j->p >= j->end)
        return v8_json_fail(j, "the file ends here");
    switch (c) {
    case '{': return v8_json_fail(j, "'{' expected");
    case '}': return v8_json_fail(j, "'}' expected");
    case '[': return v8_json_fail(j, "'[' expected");
    case ']': return v8_json_fail(j, "']' expected");
    case ':': return v8_json_fail(j, "':' expected");
    default: return v8_json_fail(j, "',' expected");
    }
}

/* Length of a string token at p (quotes included), 0 when not complete. */
static size_t string_len(const uint8_t *p, const uint8_t *end)
{
    if (p >= end || *p != '"')
        return 0;
    const uint8_t *q = p + 1;
    for (;;) {
        const uint8_t *hit = memchr(q, '"', (size_t)(end - q));
        if (!hit)
            return 0;
        /* an escaped quote has an odd number of backslashes before it */
        size_t bs = 0;
        while (hit - bs > q && hit[-1 - (ptrdiff_t)bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            return (size_t)(hit + 1 - p);
        q = hit + 1;
    }
}

bool v8_json_string(v8_json *j, uint64_t *at)
{
    v8_json_ws(j);
    if (j->p >= j->end)
        return v8_json_fail(j, "the file ends here");
    if (*j->p != '"')
        return v8_json_fail(j, "a string expected");
    size_t n = string_len(j->p, j->end);
    if (!n)
        return v8_json_fail(j, "a string runs past the end of the file");
    *at = (uint64_t)(j->p - j->start);
    j->p += n;
    return true;
}

bool v8_json_uint_slow(v8_json *j, uint64_t *v)
{
    v8_json_ws(j);
    const uint8_t *p = j->p;
    if (p >= j->end)
        return v8_json_fail(j, "the file ends here");
    if (*p < '0' || *p > '9')
        return v8_json_fail(j, *p == '-' ? "a negative number" : "a number expected");
    uint64_t x = 0;
    while (p < j->end && *p >= '0' && *p <= '9') {
        x = x * 10 + (uint64_t)(*p - '0');
        if (x > (UINT64_C(1) << 53))
            return v8_json_fail(j, "a number too large");
        p++;
    }
    if (p < j->end && (*p == '.' || *p == 'e' || *p == 'E'))
        return v8_json_fail(j, "a number that is not an integer");
    j->p = p;
    *v = x;
    return true;
}

/* A number of any form, skipped. */
static bool skip_number(v8_json *j)
{
    const uint8_t *p = j->p;
    while (p < j->end && (g_ascii_isdigit(*p) || *p == '-' || *p == '+' || *p == '.' ||
                          *p == 'e' || *p == 'E'))
        p++;
    if (p == j->p)
        return v8_json_fail(j, "a value expected");
    j->p = p;
    return true;
}

static bool skip_word(v8_json *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
        return v8_json_fail(j, "a value expected");
    j->p += n;
    return true;
}

static bool skip_at(v8_json *j, int depth)
{
    v8_json_ws(j);
    if (j->p >= j->end)
        return v8_json_fail(j, "the file ends here");
    uint64_t at;
    switch (*j->p) {
    case '"':
        return v8_json_string(j, &at);
    case 't': return skip_word(j, "true");
    case 'f': return skip_word(j, "false");
    case 'n': return skip_word(j, "null");
    case '[':
    case '{': {
        bool obj = *j->p == '{';
        if (depth >= DEPTH_MAX)
            return v8_json_fail(j, "nested more than 64 deep");
        j->p++;
        if (v8_json_accept(j, obj ? '}' : ']'))
            return true;
        do {
            if (obj && !(v8_json_string(j, &at) && v8_json_expect(j, ':')))
                return false;
            if (!skip_at(j, depth + 1))
                return false;
        } while (v8_json_accept(j, ','));
        return v8_json_expect(j, obj ? '}' : ']');
    }
    default:
        return skip_number(j);
    }
}

bool v8_json_skip(v8_json *j)
{
    return skip_at(j, 0);
}

static int hex4(const uint8_t *p, const uint8_t *end)
{
    if (end - p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        if (!g_ascii_isxdigit(p[i]))
            return -1;
        v = v << 4 | g_ascii_xdigit_value(p[i]);
    }
    return v;
}

bool v8_json_decode(const uint8_t *data, size_t size, uint64_t at, GString *out)
{
    if (at >= size)
        return false;
    size_t n = string_len(data + at, data + size);
    if (!n)
        return false;
    const uint8_t *p = data + at + 1, *end = data + at + n - 1;
    while (p < end) {
        const uint8_t *bs = memchr(p, '\\', (size_t)(end - p));
        const uint8_t *stop = bs ? bs : end;
        g_string_append_len(out, (const char *)p, stop - p);
        if (!bs)
            break;
        p = bs + 1;
        if (p >= end)
            break;
        char c = (char)*p++;
        switch (c) {
        case 'n': g_string_append_c(out, '\n'); break;
        case 't': g_string_append_c(out, '\t'); break;
        case 'r': g_string_append_c(out, '\r'); break;
        case 'b': g_string_append_c(out, '\b'); break;
        case 'f': g_string_append_c(out, '\f'); break;
        case 'u': {
            int u = hex4(p, end);
            if (u < 0) {
                g_string_append_unichar(out, 0xFFFD);
                break;
            }
            p += 4;
            if (u >= 0xD800 && u < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                int lo = hex4(p + 2, end);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    g_string_append_unichar(out, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                    p += 6;
                    break;
                }
            }
            g_string_append_unichar(out, u >= 0xD800 && u < 0xE000 ? 0xFFFD : (gunichar)u);
            break;
        }
        default: g_string_append_c(out, c); break; /* \" \\ \/ */
        }
    }
    return true;
}

bool v8_json_equals(const uint8_t *data, size_t size, uint64_t at, const char *s)
{
    GString *t = g_string_new(NULL);
    bool eq = v8_json_decode(data, size, at, t) && strcmp(t->str, s) == 0;
    g_string_free(t, TRUE);
    return eq;
}
