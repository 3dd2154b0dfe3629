/*
 * tsv.c - see tsv.h: the text writers (the number writers are inline
 * there: a table of millions of rows is written at hundreds of MB/s).
 */
#include "decoders/core/tsv.h"

#include <stdbool.h>

#include <string.h>

/* The escape of byte c, or NULL when it stands as it is. */
static const char *escape_of(char c)
{
    switch (c) {
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\\': return "\\\\";
    case '\0': return "\\0";
    default: return NULL;
    }
}

/* The bytes that are escaped, by value. */
static const bool special[256] = {['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\\'] = 1, [0] = 1};

/* Whether s[0..n) holds nothing to escape (the common case: then it is
 * copied whole). */
static bool plain(const char *s, size_t n)
{
    unsigned any = 0;
    for (size_t i = 0; i < n; i++)
        any |= special[(uint8_t)s[i]];
    return !any;
}

void hf_tsv_text(GString *out, const char *s, size_t n)
{
    if (plain(s, n)) {
        memcpy(hf_tsv_room(out, n + 1), s, n);
        hf_tsv_grew(out, n);
        return;
    }
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = escape_of(s[i]);
        if (!e)
            continue;
        g_string_append_len(out, s + from, (gssize)(i - from));
        g_string_append_len(out, e, 2);
        from = i + 1;
    }
    g_string_append_len(out, s + from, (gssize)(n - from));
}

size_t hf_tsv_text_len(const char *s, size_t n)
{
    if (plain(s, n))
        return n;
    size_t len = n;
    for (size_t i = 0; i < n; i++)
        len += escape_of(s[i]) != NULL;
    return len;
}

void hf_tsv_header(GString *out, const char *const *names, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (i)
            g_string_append_c(out, '\t');
        hf_tsv_text(out, names[i], strlen(names[i]));
    }
    g_string_append_c(out, '\n');
}

size_t hf_tsv_header_len(const char *const *names, unsigned n)
{
    size_t len = n; /* the tabs and the newline */
    for (unsigned i = 0; i < n; i++)
        len += hf_tsv_text_len(names[i], strlen(names[i]));
    return len;
}
