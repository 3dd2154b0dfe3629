/*
 * names.c - names a BMD file keeps only as a hash: Java's
 * String.hashCode, the candidate names of `-o names=FILE`, placeholders.
 *
 * The cruncher replaced most strings (class and field names) by their
 * length in bytes and String.hashCode() of the name as the dump held it:
 * slashed (java/lang/String, [I) or dotted (java.lang.String, int[]), as
 * the JVM that made the dump wrote it.  We cannot know which, so every
 * candidate line is entered in all the forms it may have had, and a hash
 * resolves when a form matches both hash and length.
 *
 * A bmd_names table is built once (single-threaded) and then only read:
 * lookups are thread-safe.  It owns its strings.
 */
#include "decoders/bmd/bmd.h"
#include "decoders/core/names.h"
#include "decoders/heap/build.h"

#include <string.h>

int32_t bmd_java_hash(const char *s, size_t len)
{
    uint32_t h = 0;
    const char *p = s, *end = s + len;
    while (p < end) {
        gunichar c = g_utf8_get_char_validated(p, end - p);
        if (c == (gunichar)-1 || c == (gunichar)-2) {
            c = 0xFFFD; /* what Java's decoder makes of a bad byte */
            p++;
        } else {
            p = g_utf8_next_char(p);
        }
        if (c >= 0x10000) { /* a surrogate pair: two UTF-16 units */
            c -= 0x10000;
            h = 31 * h + (0xD800 + (c >> 10));
            h = 31 * h + (0xDC00 + (c & 0x3FF));
        } else {
            h = 31 * h + c;
        }
    }
    return (int32_t)h;
}

void bmd_placeholder(GString *out, uint32_t len, int32_t hash)
{
    g_string_append_printf(out, "hash.%u.%08x", len, (uint32_t)hash);
}

typedef struct {
    const char *text;
    bool ambiguous;
} cand;

struct bmd_names {
    GStringChunk *chunk;
    GHashTable *by_key; /* (len << 32 | hash) -> index + 1 into cands */
    GArray *cands;      /* cand */
};

static gpointer key_of(int32_t hash, uint32_t len)
{
    /* hash in the low bits: g_direct_hash looks at those */
    return GSIZE_TO_POINTER((uint64_t)len << 32 | (uint32_t)hash);
}

static void add(bmd_names *n, const char *s, size_t len)
{
    if (!len)
        return;
    gpointer key = key_of(bmd_java_hash(s, len), (uint32_t)len);
    gpointer v = g_hash_table_lookup(n->by_key, key);
    if (v) {
        cand *c = &g_array_index(n->cands, cand, GPOINTER_TO_SIZE(v) - 1);
        if (strlen(c->text) != len || memcmp(c->text, s, len) != 0)
            c->ambiguous = true; /* two names, one hash: keep the first */
        return;
    }
    cand c = {g_string_chunk_insert_len(n->chunk, s, (gssize)len), false};
    g_array_append_val(n->cands, c);
    g_hash_table_insert(n->by_key, key, GSIZE_TO_POINTER(n->cands->len));
}

static void add_swapped(bmd_names *n, const char *s, size_t len, char from, char to)
{
    if (!memchr(s, from, len))
        return;
    char *t = g_strndup(s, len);
    for (size_t i = 0; i < len; i++)
        if (t[i] == from)
            t[i] = to;
    add(n, t, len);
    g_free(t);
}

/* s, slashed and dotted. */
static void add_both(bmd_names *n, const char *s, size_t len)
{
    add(n, s, len);
    add_swapped(n, s, len, '.', '/');
    add_swapped(n, s, len, '/', '.');
}

/* "int[][]" -> "[[I", "a.B[]" -> "[La/B;" and "[La.B;". */
static void add_descriptors(bmd_names *n, const char *s, size_t len)
{
    static const struct { const char *name; char code; } prim[] = {
        {"boolean", 'Z'}, {"char", 'C'}, {"float", 'F'}, {"double", 'D'},
        {"byte", 'B'},    {"short", 'S'}, {"int", 'I'},  {"long", 'J'},
    };
    size_t dims = 0;
    while (len >= 2 * (dims + 1) && memcmp(s + len - 2 * (dims + 1), "[]", 2) == 0)
        dims++;
    if (!dims)
        return;
    size_t blen = len - 2 * dims;
    if (!blen)
        return;
    GString *d = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(prim); i++)
        if (strlen(prim[i].name) == blen && memcmp(prim[i].name, s, blen) == 0) {
            for (size_t k = 0; k < dims; k++)
                g_string_append_c(d, '[');
            g_string_append_c(d, prim[i].code);
            add(n, d->str, d->len);
            g_string_free(d, TRUE);
            return;
        }
    for (size_t k = 0; k < dims; k++)
        g_string_append_c(d, '[');
    g_string_append_c(d, 'L');
    g_string_append_len(d, s, (gssize)blen);
    g_string_append_c(d, ';');
    add_both(n, d->str, d->len);
    g_string_free(d, TRUE);
}

/* Every form one name may have had in the dump. */
static void add_forms(bmd_names *n, const char *s, size_t len)
{
    if (len > 6 && memcmp(s + len - 6, ".class", 6) == 0)
        len -= 6; /* a jar listing: com/foo/Bar.class */
    add_both(n, s, len);
    add_descriptors(n, s, len);
    if (len > 1 && s[0] == '[') { /* a descriptor: also its display form */
        GString *d = g_string_new(NULL);
        hf_heap_display_name_append(d, s, len);
        add_both(n, d->str, d->len);
        g_string_free(d, TRUE);
    }
}

/* A token as listed by heapfs itself (histogram, classes/): escaped, with
 * "@0xID" on repeated names. */
static void add_token(bmd_names *n, const char *s, size_t len)
{
    add_forms(n, s, len);
    char *t = g_strndup(s, len);
    char *u = hf_name_unescape(t);
    char *base = u ? u : t;
    char *at = strstr(base, "@0x");
    if (at && at != base && at[3] && strspn(at + 3, "0123456789abcdef") == strlen(at + 3))
        *at = '\0';
    if (strcmp(base, t) != 0)
        add_forms(n, base, strlen(base));
    g_free(u);
    g_free(t);
}

static void add_line(bmd_names *n, const char *s, size_t len)
{
    while (len && g_ascii_isspace(s[len - 1]))
        len--;
    while (len && g_ascii_isspace(*s))
        s++, len--;
    if (!len || s[0] == '#')
        return;
    add_token(n, s, len);
    size_t last = len;
    while (last && !g_ascii_isspace(s[last - 1]))
        last--;
    if (last) /* several columns: the last one is the name */
        add_token(n, s + last, len - last);
}

bmd_names *bmd_names_from_text(const char *text, size_t len)
{
    bmd_names *n = g_new0(bmd_names, 1);
    n->chunk = g_string_chunk_new(64 * 1024);
    n->by_key = g_hash_table_new(g_direct_hash, g_direct_equal);
    n->cands = g_array_new(FALSE, FALSE, sizeof(cand));
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        add_line(n, p, (size_t)(e - p));
        p = nl ? nl + 1 : end;
    }
    return n;
}

bmd_names *bmd_names_load(const char *path, GError **err)
{
    gchar *text = NULL;
    gsize len = 0;
    GError *e = NULL;
    if (!g_file_get_contents(path, &text, &len, &e)) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "names file: %s", e->message);
        g_error_free(e);
        return NULL;
    }
    bmd_names *n = bmd_names_from_text(text, len);
    g_free(text);
    return n;
}

void bmd_names_free(bmd_names *n)
{
    if (!n)
        return;
    g_string_chunk_free(n->chunk);
    g_hash_table_destroy(n->by_key);
    g_array_free(n->cands, TRUE);
    g_free(n);
}

uint64_t bmd_names_count(const bmd_names *n)
{
    return n ? n->cands->len : 0;
}

const char *bmd_names_lookup(const bmd_names *n, int32_t hash, uint32_t len, bool *ambiguous)
{
    if (ambiguous)
        *ambiguous = false;
    if (!n)
        return NULL;
    gpointer v = g_hash_table_lookup(n->by_key, key_of(hash, len));
    if (!v)
        return NULL;
    const cand *c = &g_array_index(n->cands, cand, GPOINTER_TO_SIZE(v) - 1);
    if (ambiguous)
        *ambiguous = c->ambiguous;
    return c->text;
}
