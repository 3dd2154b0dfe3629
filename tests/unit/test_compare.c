/* Unit tests for decoders/core/compare.c (growth, strings-new) and
 * fs/mount.c (the snapshots of several dumps), with fake dumps whose
 * snapshots hold a few named tallies and strings. */
#include "tests/unit/helpers.h"

#include "decoders/core/compare.h"
#include "fs/mount.h"

/* A fake dump: snapshots of rows {name, count, bytes} and strings. */
typedef struct {
    const char *name;
    int64_t count, bytes;
} frow;

typedef struct {
    const frow *rows;      /* ended by a NULL name */
    const char *const *strings; /* object o's text, NULL: not a string; ends at "" */
} fsnap;

typedef struct {
    hf_dump base;
    const fsnap *snaps;
    uint32_t n;
    bool retained;
} fdump;

static uint32_t f_n_snapshots(hf_dump *d)
{
    return ((fdump *)d)->n;
}

static uint64_t f_snapshot_number(hf_dump *d, uint32_t s)
{
    return 10 * (s + 1); /* 10, 20, ...: names need not be 1, 2 */
}

static bool f_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    fdump *f = (fdump *)d;
    if (retained && !f->retained)
        return false;
    if (!fn)
        return true;
    for (const frow *r = f->snaps[s].rows; r->name; r++)
        fn(ud, r->name, r->count, retained ? 2 * r->bytes : r->bytes);
    return true;
}

static uint64_t f_n_objects(hf_dump *d, uint32_t s)
{
    uint64_t n = 0;
    const char *const *t = ((fdump *)d)->snaps[s].strings;
    while (t[n] == NULL || t[n][0])
        n++;
    return n;
}

static bool f_text(hf_dump *d, uint32_t s, uint64_t o, GString *out)
{
    const char *t = ((fdump *)d)->snaps[s].strings[o];
    if (!t)
        return false;
    g_string_append(out, t);
    return true;
}

static void f_object_name(hf_dump *d, uint32_t s, uint64_t o, char name[HF_NAME_MAX])
{
    g_snprintf(name, HF_NAME_MAX, "0x%x", (unsigned)(0x100 + o));
}

static uint64_t f_info(hf_dump *d, const hf_view *v, uint64_t first, GString *out, size_t b)
{
    g_string_append_printf(out, "fake: %u snapshots\n", ((fdump *)d)->n);
    return HF_DONE;
}

static void f_destroy(hf_dump *d)
{
    hf_dump_clear(d);
    g_free(d);
}

static const hf_dump_ops fops = {
    .format = "fake",
    .destroy = f_destroy,
    .render_info = f_info,
    .n_snapshots = f_n_snapshots,
    .snapshot_number = f_snapshot_number,
    .n_objects = f_n_objects,
    .object_name = f_object_name,
    .tally = f_tally,
    .text = f_text,
};

static const char *const no_strings[] = {""};
static const char *const strings1[] = {"alpha", NULL, "beta", ""};
static const char *const strings2[] = {"beta", "gamma", NULL, "alpha", "gamma", "delta",
                                       "two\nlines", ""};

static const frow rows1[] = {{"Steady", 5, 80},   {"Grows", 10, 160}, {"Shrinks", 8, 128},
                             {"Leaves", 3, 48},   {"Twice", 1, 16},   {"Twice", 2, 32},
                             {NULL, 0, 0}};
static const frow rows2[] = {{"Steady", 5, 80},  {"Grows", 30, 480}, {"Shrinks", 2, 32},
                             {"Arrives", 4, 400}, {"Twice", 3, 48},  {"Same-bytes", 0, 0},
                             {NULL, 0, 0}};
static const fsnap snaps[] = {{rows1, strings1}, {rows2, strings2}};

static hf_dump *fake(const fsnap *s, uint32_t n, bool retained, const char *path)
{
    fdump *f = g_new0(fdump, 1);
    hf_dump_init(&f->base, &fops, path, NULL);
    f->snaps = s;
    f->n = n;
    f->retained = retained;
    return &f->base;
}

static char *render_growth(hf_snapref a, hf_snapref b, bool retained)
{
    GString *out = g_string_new(NULL);
    uint64_t it = hf_compare_growth(a, b, retained, 0, out, SIZE_MAX);
    assert_true(it == HF_DONE);
    return g_string_free(out, FALSE);
}

/* The lines after the header line. */
static const char *body(const char *s)
{
    assert_true(s[0] == '#');
    return strchr(s, '\n') + 1;
}

static void test_growth_order_and_states(void **state)
{
    hf_dump *d = fake(snaps, 2, false, "x");
    char *g = render_growth((hf_snapref){d, 0}, (hf_snapref){d, 1}, false);
    /* By byte growth, then objects; unchanged Steady and Twice (1 + 2
     * rows = 3 objects, 48 bytes both times) are left out, and so is
     * Same-bytes, which holds nothing (a site with nothing in use). */
    assert_string_equal(body(g),
                        "4\t400\t4\t400\tnew\tArrives\n"
                        "20\t320\t30\t480\tchanged\tGrows\n"
                        "-3\t-48\t0\t0\tgone\tLeaves\n"
                        "-6\t-96\t2\t32\tchanged\tShrinks\n");
    /* plain integers, TAB apart: the header line names them (docs/views.md) */
    assert_true(g_str_has_prefix(g, "# delta_objects\tdelta_bytes\tobjects\tbytes\tstate\tname\n"));
    g_free(g);
    hf_dump_close(d);
}

static void test_growth_retained(void **state)
{
    hf_dump *with = fake(snaps, 2, true, "a"), *without = fake(snaps, 2, false, "b");
    assert_true(hf_compare_has_growth((hf_snapref){with, 0}, (hf_snapref){with, 1}, true));
    assert_false(hf_compare_has_growth((hf_snapref){with, 0}, (hf_snapref){without, 1}, true));
    assert_true(hf_compare_has_growth((hf_snapref){with, 0}, (hf_snapref){without, 1}, false));
    char *g = render_growth((hf_snapref){with, 0}, (hf_snapref){with, 1}, true);
    assert_true(g_str_has_prefix(g, "# delta_objects\tdelta_retained\tobjects\tretained\tstate\tname\n"));
    assert_non_null(strstr(g, "\n20\t640\t30\t960\tchanged\tGrows\n"));
    g_free(g);
    hf_dump_close(with);
    hf_dump_close(without);
}

static void test_strings_new(void **state)
{
    hf_dump *d = fake(snaps, 2, false, "x");
    assert_true(hf_compare_has_strings((hf_snapref){d, 0}, (hf_snapref){d, 1}));
    hf_textset *t = hf_textset_new((hf_snapref){d, 0});
    GString *out = g_string_new(NULL);
    assert_true(hf_compare_strings_new(t, (hf_snapref){d, 1}, 0, out, SIZE_MAX) == HF_DONE);
    /* strings' header and rows; a newline in a text stays in its row */
    assert_string_equal(out->str, "# id\ttext\n0x101\tgamma\n0x104\tgamma\n0x105\tdelta\n"
                                  "0x106\ttwo\\nlines\n");
    /* In pieces: each call makes progress and resumes at an object. */
    GString *parts = g_string_new(NULL);
    for (uint64_t it = 0; it != HF_DONE;)
        it = hf_compare_strings_new(t, (hf_snapref){d, 1}, it, parts, 1);
    assert_string_equal(parts->str, out->str);
    g_string_free(parts, TRUE);
    g_string_free(out, TRUE);
    hf_textset_free(t);
    hf_dump_close(d);
}

/* ---- several dumps (fs/mount.c) ---- */

static void test_mount_numbering(void **state)
{
    static const fsnap one[] = {{rows1, no_strings}};
    hf_dump *d[3] = {fake(snaps, 2, false, "/a.hprof"), fake(one, 1, false, "/b.bmd"),
                     fake(snaps, 2, false, "/c.hprof")};
    hf_problem(d[1], 0x10, "bad record");
    hf_mount *m = hf_mount_new(d, 3, true);
    assert_int_equal(hf_mount_n_snaps(m), 5);
    /* a: 10, 20; b: 20 + 10; c: 30 + 10, 30 + 20 */
    uint64_t want[] = {10, 20, 30, 40, 50};
    for (uint32_t s = 0; s < 5; s++)
        assert_int_equal(hf_mount_snap_number(m, s), want[s]);
    hf_snapref r = hf_mount_at(m, 2);
    assert_ptr_equal(r.d, d[1]);
    assert_int_equal(r.s, 0);
    r = hf_mount_at(m, 4);
    assert_ptr_equal(r.d, d[2]);
    assert_int_equal(r.s, 1);
    /* traces and threads: per snapshot (index + 1), none mount-wide */
    assert_null(hf_mount_tt(m, 0).d);
    assert_ptr_equal(hf_mount_tt(m, 3).d, d[1]);
    assert_null(hf_mount_tt(m, 6).d);
    /* growth from the second snapshot on, across dumps too */
    assert_false(hf_mount_has_compare(m, 0, HF_CMP_GROWTH));
    assert_true(hf_mount_has_compare(m, 2, HF_CMP_GROWTH));
    assert_false(hf_mount_has_compare(m, 2, HF_CMP_GROWTH_RETAINED));
    GString *out = g_string_new(NULL);
    hf_mount_errors(m, 0, out, SIZE_MAX);
    assert_string_equal(out->str, "/b.bmd: offset 0x10: bad record\n");
    g_string_truncate(out, 0);
    hf_mount_info(m, 0, out, SIZE_MAX);
    assert_non_null(strstr(out->str, "files: 3\nfile 1: /a.hprof (fake, snapshots 10-20)\n"
                                     "file 2: /b.bmd (fake, snapshot 30)\n"));
    assert_non_null(strstr(out->str, "\n== /c.hprof ==\nfake: 2 snapshots\n"));
    g_string_free(out, TRUE);
    hf_mount_free(m);
}

static void test_mount_one(void **state)
{
    hf_dump *d = fake(snaps, 2, false, "/a.hprof");
    hf_mount *m = hf_mount_new(&d, 1, true);
    assert_int_equal(hf_mount_snap_number(m, 1), 20);
    assert_ptr_equal(hf_mount_tt(m, 0).d, d); /* the mount's own */
    assert_null(hf_mount_tt(m, 1).d);
    GString *out = g_string_new(NULL);
    hf_mount_info(m, 0, out, SIZE_MAX);
    assert_string_equal(out->str, "fake: 2 snapshots\n"); /* just the dump's info */
    g_string_free(out, TRUE);
    hf_mount_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth_order_and_states),
        cmocka_unit_test(test_growth_retained),
        cmocka_unit_test(test_strings_new),
        cmocka_unit_test(test_mount_numbering),
        cmocka_unit_test(test_mount_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
