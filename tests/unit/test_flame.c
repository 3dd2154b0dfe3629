/*
 * test_flame.c - the flame.svg writer (decoders/pprof/flame.h).
 *
 * Reads the frames back out of the SVG (data-x, data-v, data-d, data-m,
 * <title>, rect width, label) and checks them against the samples: totals,
 * each frame's value and offset, sibling order, merging of narrow frames,
 * label cutting, escaping, and that GMarkup parses the whole picture.
 */
#include "decoders/core/model.h"
#include "decoders/pprof/flame.h"
#include "decoders/pprof/pprof.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/helpers.h"

typedef struct {
    uint64_t x, v;
    unsigned d;
    bool merged;
    double width;
    char *title, *label; /* as written: escaped */
} fframe;

static char *render(const hf_pprof *p)
{
    GString *s = g_string_new(NULL);
    assert_int_equal(hf_flame_render(p, HF_PPROF_INUSE_BYTES, "t<1>", "bytes", 0, s, 1),
                     HF_DONE);
    assert_int_equal(hf_flame_render(p, HF_PPROF_INUSE_BYTES, "t", "bytes", 1, s, 1), HF_DONE);
    return g_string_free(s, FALSE);
}

static void free_frame(gpointer p)
{
    fframe *f = p;
    g_free(f->title);
    g_free(f->label);
}

static GArray *frames_of(const char *svg)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(fframe));
    g_array_set_clear_func(out, free_frame);
    GRegex *re = g_regex_new("<g class=\"f\" id=\"f\\d+\" data-x=\"(\\d+)\" data-v=\"(\\d+)\" "
                             "data-d=\"(\\d+)\"(?: data-b=\"\\d+\")?( data-m=\"1\")?><title>([^<]*)</title><rect "
                             "[^>]*width=\"([0-9.]+)\"[^>]*/><text [^>]*>([^<]*)</text></g>",
                             0, 0, NULL);
    GMatchInfo *m;
    g_regex_match(re, svg, 0, &m);
    for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
        char *g[8];
        for (int i = 1; i < 8; i++)
            g[i] = g_match_info_fetch(m, i);
        fframe f = {g_ascii_strtoull(g[1], NULL, 10), g_ascii_strtoull(g[2], NULL, 10),
                    (unsigned)atoi(g[3]), g[4][0] != '\0', g_ascii_strtod(g[6], NULL),
                    g_strdup(g[5]), g_strdup(g[7])};
        g_array_append_val(out, f);
        for (int i = 1; i < 8; i++)
            g_free(g[i]);
    }
    g_match_info_free(m);
    g_regex_unref(re);
    return out;
}

/* The frame whose title starts with `name (`, or NULL. */
static const fframe *find(GArray *fs, const char *name)
{
    char *prefix = g_strdup_printf("%s (", name);
    const fframe *found = NULL;
    for (guint i = 0; i < fs->len && !found; i++)
        if (g_str_has_prefix(g_array_index(fs, fframe, i).title, prefix))
            found = &g_array_index(fs, fframe, i);
    g_free(prefix);
    return found;
}

static void assert_well_formed(const char *svg)
{
    GMarkupParser none = {0};
    GMarkupParseContext *c = g_markup_parse_context_new(&none, 0, NULL, NULL);
    GError *err = NULL;
    gboolean ok = g_markup_parse_context_parse(c, svg, -1, &err) &&
                  g_markup_parse_context_end_parse(c, &err);
    if (!ok)
        fail_msg("not well-formed: %s", err->message);
    g_markup_parse_context_free(c);
}

static void add(hf_pprof *p, uint64_t bytes, int n, ...)
{
    const char *fr[16];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) /* given root first, stored leaf first */
        fr[n - 1 - i] = va_arg(ap, const char *);
    va_end(ap);
    hf_pprof_values v = {1, bytes, 1, bytes};
    hf_pprof_add(p, fr, (size_t)n, &v);
}

static void test_totals_order_offsets(void **state)
{
    hf_pprof *p = hf_pprof_new("t");
    add(p, 3000, 2, "main", "zeta");
    add(p, 1000, 2, "main", "alpha");
    add(p, 500, 1, "init");
    add(p, 700, 3, "main", "alpha", "leaf");
    hf_pprof_values zero = {5, 0, 5, 0}; /* no bytes: not drawn, as in stacks.folded */
    const char *z[] = {"never"};
    hf_pprof_add(p, z, 1, &zero);
    char *svg = render(p);
    assert_well_formed(svg);
    GArray *fs = frames_of(svg);
    assert_int_equal(fs->len, 6);
    const fframe *all = find(fs, "all"), *init = find(fs, "init"), *mn = find(fs, "main");
    const fframe *alpha = find(fs, "alpha"), *zeta = find(fs, "zeta"), *leaf = find(fs, "leaf");
    assert_non_null(all);
    assert_int_equal(all->v, 5200);
    assert_int_equal(all->d, 0);
    assert_string_equal(all->title, "all (5200 bytes, 100.00%)");
    /* Siblings by name: init then main; alpha then zeta under main. */
    assert_int_equal(init->x, 0);
    assert_int_equal(init->v, 500);
    assert_int_equal(mn->x, 500);
    assert_int_equal(mn->v, 4700);
    assert_int_equal(alpha->x, 500);
    assert_int_equal(alpha->v, 1700);
    assert_int_equal(zeta->x, 2200);
    assert_int_equal(leaf->x, 500);
    assert_int_equal(leaf->d, 3);
    assert_null(find(fs, "never"));
    /* Widths in proportion: all is the full width. */
    assert_true(all->width > 1179.9 && all->width < 1180.1);
    assert_true(mn->width > 4700.0 / 5200 * 1180 - 0.1 && mn->width < 4700.0 / 5200 * 1180 + 0.1);
    assert_non_null(strstr(svg, "<text id=\"title\" x=\"600\" y=\"20\">t&lt;1&gt;</text>"));
    /* No external reference: the one URI is the SVG namespace's. */
    const char *ns = strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\"");
    assert_non_null(ns);
    assert_null(strstr(ns + strlen("xmlns=\"http"), "http"));
    assert_true(strstr(svg, "http") == ns + 7);
    assert_null(strstr(svg, "href"));
    g_array_free(fs, TRUE);
    g_free(svg);
    hf_pprof_free(p);
}

static void test_escaping(void **state)
{
    hf_pprof *p = hf_pprof_new("t");
    add(p, 100, 2, "a<b>&\"c'", "x;y");
    add(p, 100, 1, "bad\xff\xfe utf8");
    char *svg = render(p);
    assert_well_formed(svg);
    GArray *fs = frames_of(svg);
    assert_non_null(find(fs, "a&lt;b&gt;&amp;&quot;c&apos;"));
    assert_non_null(find(fs, "x:y")); /* ';' as stacks.folded writes it */
    assert_non_null(find(fs, "bad\xef\xbf\xbd\xef\xbf\xbd utf8"));
    assert_true(g_utf8_validate(svg, -1, NULL));
    g_array_free(fs, TRUE);
    g_free(svg);
    GString *s = g_string_new(NULL);
    hf_xml_escape(s, "<&>\"'\x01ok\xef\xbf\xbf");
    assert_string_equal(s->str, "&lt;&amp;&gt;&quot;&apos;\xef\xbf\xbdok\xef\xbf\xbd");
    g_string_free(s, TRUE);
    hf_pprof_free(p);
}

static void test_narrow_frames_merged(void **state)
{
    hf_pprof *p = hf_pprof_new("t");
    add(p, 100000, 2, "root", "big");
    char name[32], deep[32];
    for (int i = 0; i < 5000; i++) {
        g_snprintf(name, sizeof name, "small%04d", i);
        g_snprintf(deep, sizeof deep, "deep%04d", i);
        add(p, 10, 3, "root", name, deep);
    }
    char *svg = render(p);
    assert_well_formed(svg);
    GArray *fs = frames_of(svg);
    /* all, root, big and one merged frame for the 5000 small ones (50000 of
     * 150000 bytes); nothing under the merged frame. */
    assert_int_equal(fs->len, 4);
    const fframe *big = find(fs, "big"), *other = find(fs, "[5000 smaller frames]");
    assert_non_null(other);
    assert_true(other->merged);
    assert_false(big->merged);
    assert_int_equal(other->v, 50000);
    assert_int_equal(other->x, big->x + big->v); /* narrow ones last */
    assert_int_equal(other->d, 2);
    assert_int_equal(find(fs, "all")->v, 150000);
    assert_true(strlen(svg) < 8000); /* bounded: not 10,000 frames */
    g_array_free(fs, TRUE);
    g_free(svg);
    hf_pprof_free(p);
    /* Narrow siblings that together stay narrow are left out. */
    p = hf_pprof_new("t");
    add(p, 1000000, 1, "big");
    add(p, 10, 1, "tiny1");
    add(p, 10, 1, "tiny2");
    svg = render(p);
    fs = frames_of(svg);
    assert_int_equal(fs->len, 2);
    assert_int_equal(find(fs, "all")->v, 1000020);
    g_array_free(fs, TRUE);
    g_free(svg);
    hf_pprof_free(p);
}

static void test_labels_fit(void **state)
{
    hf_pprof *p = hf_pprof_new("t");
    const char *longname = "com.example.a.very.long.package.name.SomeClass.someMethod(SomeClass.java:1234)";
    add(p, 100, 1, longname);
    add(p, 900, 1, "wide");
    add(p, 3, 1, "thin"); /* 0.3%: drawn, too thin for a label */
    char *svg = render(p);
    GArray *fs = frames_of(svg);
    for (guint i = 0; i < fs->len; i++) {
        const fframe *f = &g_array_index(fs, fframe, i);
        /* Each label fits its frame (7.3 px a character, 3 px each side). */
        if (*f->label && g_utf8_strlen(f->label, -1) * 7.3 + 6 > f->width + 0.05)
            fail_msg("label \"%s\" wider than %.1f", f->label, f->width);
    }
    const fframe *l = find(fs, longname);
    assert_non_null(l);
    assert_true(g_str_has_suffix(l->label, ".."));
    char *kept = g_strndup(l->label, strlen(l->label) - 2);
    assert_true(g_str_has_prefix(longname, kept));
    g_free(kept);
    assert_string_equal(find(fs, "wide")->label, "wide");
    assert_string_equal(find(fs, "thin")->label, "");
    g_array_free(fs, TRUE);
    g_free(svg);
    hf_pprof_free(p);
}

static void test_empty(void **state)
{
    hf_pprof *p = hf_pprof_new("t");
    char *svg = render(p);
    assert_well_formed(svg);
    GArray *fs = frames_of(svg);
    assert_int_equal(fs->len, 0);
    assert_non_null(strstr(svg, "no samples"));
    g_array_free(fs, TRUE);
    g_free(svg);
    hf_pprof_free(p);
}

/* The data-b of frame `name` in a flame-diff picture, and its fill. */
static uint64_t before_of(const char *svg, const char *name, char fill[32])
{
    char *pat = g_strdup_printf("data-b=\"(\\d+)\"><title>%s \\([^<]*</title><rect [^>]*fill=\"([^\"]*)\"", name);
    GRegex *re = g_regex_new(pat, 0, 0, NULL);
    GMatchInfo *m;
    uint64_t b = UINT64_MAX;
    if (g_regex_match(re, svg, 0, &m)) {
        char *v = g_match_info_fetch(m, 1), *f = g_match_info_fetch(m, 2);
        b = g_ascii_strtoull(v, NULL, 10);
        g_strlcpy(fill, f, 32);
        g_free(v);
        g_free(f);
    }
    g_match_info_free(m);
    g_regex_unref(re);
    g_free(pat);
    return b;
}

static void test_diff(void **state)
{
    hf_pprof *before = hf_pprof_new("t"), *now = hf_pprof_new("t");
    add(before, 1000, 2, "main", "grows");
    add(before, 4000, 2, "main", "shrinks");
    add(before, 300, 2, "main", "same");
    add(before, 900, 2, "main", "gone"); /* only before: counts in main, not drawn */
    add(now, 3000, 2, "main", "grows");
    add(now, 1000, 2, "main", "shrinks");
    add(now, 300, 2, "main", "same");
    add(now, 50, 2, "main", "new");
    GString *s = g_string_new(NULL);
    hf_flame_render_diff(now, before, HF_PPROF_INUSE_BYTES, "d", "bytes", s);
    char *svg = g_string_free(s, FALSE);
    assert_well_formed(svg);
    GArray *fs = frames_of(svg);
    assert_null(find(fs, "gone"));
    assert_int_equal(find(fs, "main")->v, 4350);
    char fill[32];
    assert_int_equal(before_of(svg, "all", fill), 6200);
    assert_int_equal(before_of(svg, "main", fill), 6200);
    assert_string_equal(find(fs, "main")->title,
                        "main (4350 bytes, 100.00%; before 6200 bytes; change -1850 bytes)");
    assert_int_equal(before_of(svg, "shrinks", fill), 4000);
    assert_string_equal(fill, "rgb(30,30,255)"); /* the largest change: deepest */
    assert_int_equal(before_of(svg, "grows", fill), 1000);
    assert_string_equal(fill, "rgb(255,90,90)"); /* 2000 of 3000: 40 + 120 */
    assert_int_equal(before_of(svg, "same", fill), 300);
    assert_string_equal(fill, "rgb(255,250,250)");
    assert_int_equal(before_of(svg, "new", fill), 0);
    assert_string_equal(fill, "rgb(255,207,207)"); /* 50 of 3000: 40 + 3 */
    g_array_free(fs, TRUE);
    g_free(svg);
    hf_pprof_free(before);
    hf_pprof_free(now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals_order_offsets),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_narrow_frames_merged),
        cmocka_unit_test(test_labels_fit),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
