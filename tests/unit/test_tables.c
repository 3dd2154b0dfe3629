/*
 * test_tables.c - the tables (decoders/core/tsv.h, decoders/heap/tables.h):
 * the writers and their byte counts, every table of every heap file of the
 * corpus (measure == render, from every checkpoint too; the header's column
 * count on every row; objects.tsv against info, classes.tsv against the
 * histogram, references.tsv against refs/), and a hand-built dump with
 * hostile names and texts, whose every value must stay in its column.
 *
 * Run from the project root (the corpus is tests/corpus).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "tests/unit/hprofbld.h"

#include "decoders/core/tsv.h"

/* ---- the writers ---- */

static void test_writers(void **state)
{
    const uint64_t nums[] = {0, 9, 10, 99, 100, 12345, UINT32_MAX, UINT64_MAX};
    for (size_t i = 0; i < G_N_ELEMENTS(nums); i++) {
        GString *s = g_string_new(NULL);
        char want[64];
        hf_tsv_u64(s, nums[i]);
        snprintf(want, sizeof want, "%" G_GUINT64_FORMAT, (guint64)nums[i]);
        assert_string_equal(s->str, want);
        assert_int_equal(hf_tsv_u64_len(nums[i]), strlen(want));
        g_string_truncate(s, 0);
        hf_tsv_id(s, nums[i]);
        snprintf(want, sizeof want, HF_FMT_ID, (guint64)nums[i]);
        assert_string_equal(s->str, want);
        assert_int_equal(hf_tsv_id_len(nums[i]), strlen(want));
        g_string_truncate(s, 0);
        hf_tsv_i64(s, -(int64_t)(nums[i] >> 1) - 1);
        snprintf(want, sizeof want, "%" G_GINT64_FORMAT, -(gint64)(nums[i] >> 1) - 1);
        assert_string_equal(s->str, want);
        assert_int_equal(hf_tsv_i64_len(-(int64_t)(nums[i] >> 1) - 1), strlen(want));
        g_string_free(s, TRUE);
    }
    const char text[] = "a\tb\nc\rd\\e\0f\xff";
    GString *s = g_string_new(NULL);
    hf_tsv_text(s, text, sizeof text - 1);
    assert_string_equal(s->str, "a\\tb\\nc\\rd\\\\e\\0f\xff");
    assert_int_equal(hf_tsv_text_len(text, sizeof text - 1), s->len);
    g_string_free(s, TRUE);
}

/* ---- checks on one table ---- */

/* Rows of a table: split on newlines, the last (empty) dropped. */
static char **rows_of(const char *table)
{
    char **rows = g_strsplit(table, "\n", -1);
    guint n = g_strv_length(rows);
    assert_true(n >= 2);
    assert_string_equal(rows[n - 1], ""); /* ends with a newline */
    g_free(rows[n - 1]);
    rows[n - 1] = NULL;
    return rows;
}

/* Every row has the header's column count, and the table ends with a
 * newline: one pass (g_strsplit is quadratic under the sanitizer's strstr). */
static void check_columns(const char *what, const char *table)
{
    guint want = 0, n = 1, row = 0;
    for (const char *p = table; *p; p++) {
        if (*p == '\t') {
            n++;
        } else if (*p == '\n') {
            if (row == 0)
                want = n;
            else if (n != want)
                fail_msg("%s row %u has %u columns, the header %u", what, row, n, want);
            row++;
            n = 1;
        }
    }
    assert_true(row >= 1);
    assert_int_equal(table[strlen(table) - 1], '\n');
}

/* The table's measure gives its rendered size, from item 0 and from every
 * item measuring stopped at (as fs/ keeps checkpoints), and rendering from
 * each of those items gives the bytes at that offset.  After `steps` steps
 * the rest is measured in bigger ones (big tables, sanitizer builds). */
static void check_measure(hf_dump *d, const hf_file *f, hf_view v, const char *whole,
                          size_t budget, unsigned steps)
{
    size_t len = strlen(whole);
    uint64_t item = 0, total = 0;
    for (unsigned k = 0; item != HF_DONE; k++) {
        if (k == steps)
            budget = MAX(budget, 1 << 16);
        GString *out = g_string_new(NULL);
        f->render(d, &v, item, out, 64);
        assert_true(total + out->len <= len);
        assert_memory_equal(out->str, whole + total, out->len);
        g_string_free(out, TRUE);
        uint64_t next = f->measure(d, &v, item, &total, budget);
        assert_true(next == HF_DONE || next > item);
        item = next;
    }
    assert_int_equal(total, len);
}

/* Snapshots of more objects than this get the light checks only (whole
 * renders, measured in big steps), and are skipped where they have
 * retained.tsv (whose graph takes minutes in the sanitizer build):
 * t_tables.sh reads their tables through a mount. */
#define FULL_MAX 100000

static void check_table(hf_dump *d, uint32_t s, const char *name, const char *what, bool full)
{
    const hf_file *files = d->ops->snapshot.files;
    int fi = th_file_index(files, name);
    assert_true(fi >= 0);
    hf_view v = {s, 0, (uint32_t)fi};
    /* in chunks of 100 bytes where the table is small, of 8 KiB where not */
    char *whole = th_render(d, files[fi].render, v, SIZE_MAX);
    size_t chunk = strlen(whole) < 100000 ? 100 : 8192;
    if (full) {
        g_free(whole);
        whole = th_render_chunked(d, files[fi].render, v, chunk);
        check_measure(d, &files[fi], v, whole, 1000, 300);
        check_measure(d, &files[fi], v, whole, 1, 1000);
    }
    check_measure(d, &files[fi], v, whole, 100000, 100);
    check_columns(what, whole);
    g_free(whole);
}

/* objects.tsv: one row per object, each as the object's info says. */
static void check_objects(hf_dump *d, uint32_t s)
{
    char *t = th_snap_file(d, s, "tables/objects.tsv");
    char **rows = rows_of(t);
    uint64_t n = d->ops->n_objects(d, s);
    assert_int_equal(g_strv_length(rows), n + 1);
    for (uint64_t o = 0; o < n; o += 1 + n / 50) {
        char name[HF_NAME_MAX];
        d->ops->object_name(d, s, o, name);
        char **col = g_strsplit(rows[o + 1], "\t", -1);
        assert_string_equal(col[0], name);
        char *info = th_object_file(d, s, name, "info");
        hf_target cls;
        assert_true(th_object_link(d, s, name, "class", &cls));
        GString *esc = g_string_new(NULL);
        hf_tsv_text(esc, cls.name, strlen(cls.name));
        assert_string_equal(col[1], esc->str);
        g_string_free(esc, TRUE);
        char *want = g_strdup_printf("\nsize: %s\n", col[2]);
        assert_non_null(strstr(info, want));
        g_free(want);
        if (*col[3]) {
            want = g_strdup_printf("\nlength: %s", col[3]);
            assert_non_null(strstr(info, want));
            g_free(want);
        }
        g_free(info);
        g_strfreev(col);
    }
    g_strfreev(rows);
    g_free(t);
}

/* classes.tsv: row c + 1 is class c, its name escaped, its counts as its
 * info says (the histogram's figures; the mount tests compare those). */
static void check_classes(hf_dump *d, uint32_t s)
{
    char *t = th_snap_file(d, s, "tables/classes.tsv");
    char **rows = rows_of(t);
    uint64_t n = d->ops->n_classes(d, s);
    assert_int_equal(g_strv_length(rows), n + 1);
    for (uint64_t c = 0; c < n; c++) {
        char name[HF_NAME_MAX];
        d->ops->class_name(d, s, c, name);
        char **col = g_strsplit(rows[c + 1], "\t", -1);
        GString *want = g_string_new(NULL);
        hf_tsv_text(want, name, strlen(name));
        assert_string_equal(col[1], want->str);
        g_string_printf(want, "\ninstance count: %s\ntotal bytes: %s\n", col[5], col[6]);
        assert_contains(th_class_file(d, s, name, "info"), want->str);
        g_string_free(want, TRUE);
        g_strfreev(col);
    }
    g_strfreev(rows);
    g_free(t);
}

/* references.tsv: an object's rows are its refs/ entries. */
static void check_references(hf_dump *d, uint32_t s)
{
    char *t = th_snap_file(d, s, "tables/references.tsv");
    GString *want = g_string_new("from_id\tfield\tto_id\n");
    for (uint64_t o = 0, n = d->ops->n_objects(d, s); o < n; o++) {
        char from[HF_NAME_MAX], name[HF_NAME_MAX];
        hf_target to;
        d->ops->object_name(d, s, o, from);
        for (uint32_t slot = 0;; slot++) {
            hf_ref_status st = th_ref(d, s, o, slot, name, &to);
            if (st == HF_REF_END)
                break;
            if (st != HF_REF_OK)
                continue;
            g_string_append_printf(want, "%s\t", from);
            hf_tsv_text(want, name, strlen(name));
            g_string_append_printf(want, "\t%s\n", to.name);
        }
    }
    assert_string_equal(t, want->str);
    g_string_free(want, TRUE);
    g_free(t);
}

/* Every table of every snapshot (the profile formats' too); then the
 * heap's against the mount's other views. */
static void check_dump(hf_dump *d, const char *what, bool refs)
{
    for (uint32_t s = 0; s < d->ops->n_snapshots(d); s++) {
        bool full = !d->ops->n_objects || d->ops->n_objects(d, s) < FULL_MAX;
        for (const hf_file *f = d->ops->snapshot.files; f->name; f++)
            if (g_str_has_prefix(f->name, "tables/") &&
                th_has_file(d, d->ops->snapshot.files, s, 0, f->name) &&
                (full || strcmp(f->name, "tables/retained.tsv") != 0))
                check_table(d, s, f->name, what, full);
        if (!th_has_file(d, d->ops->snapshot.files, s, 0, "tables/references.tsv") || !full)
            continue; /* not a heap snapshot, or a big one */
        check_objects(d, s);
        check_classes(d, s);
        if (refs && d->ops->n_objects(d, s) < FULL_MAX / 2) /* a slot at a time: slow */
            check_references(d, s);
        /* about 40 classes: each table scans every object for its instances */
        for (uint64_t c = 0, n = d->ops->n_classes(d, s); c < n; c += 1 + n / 40) {
            hf_view v = {s, c, (uint32_t)th_file_index(d->ops->class_.files, "table.tsv")};
            char *t = th_render_chunked(d, d->ops->class_.files[v.file].render, v, 100);
            check_columns(what, t);
            g_free(t);
        }
    }
}

static void check_dir(char *dir, bool refs)
{
    GDir *g = g_dir_open(dir, 0, NULL);
    assert_non_null(g);
    const char *f;
    int n = 0;
    while ((f = g_dir_read_name(g))) {
        if (g_str_has_suffix(f, "-result.txt"))
            continue; /* hprof-slurp's results beside the dumps */
        char *path = g_build_filename(dir, f, NULL);
        GError *e = NULL;
        hf_dump *d = hf_open(path, NULL, &e);
        if (d) {
            check_dump(d, path, refs);
            hf_dump_close(d);
            n++;
        }
        g_clear_error(&e);
        g_free(path);
    }
    assert_true(n > 0);
    g_dir_close(g);
    g_free(dir);
}

static void check_corpus_dir(const char *sub, bool refs)
{
    check_dir(th_corpus(sub, NULL), refs);
}

static void test_corpus_hprof(void **state) { check_corpus_dir("hprof", true); }
static void test_corpus_bmd(void **state) { check_corpus_dir("bmd", true); }
static void test_corpus_hprof_txt(void **state) { check_corpus_dir("hprof-txt", true); }
static void test_corpus_gperf(void **state) { check_corpus_dir("pprof-heap", true); }
static void test_fixtures_oemp(void **state) { check_dir(th_fixture(""), true); }

/* ---- hostile names and texts ---- */

enum { S_OBJECT = 1, S_STRING, S_CLASS, S_BAD, S_FG, S_RQ, S_VALUE, S_BYTES };
enum { C_OBJECT = 0x100, C_STRING = 0x200, C_CLASS = 0x300, C_BAD = 0x400, C_BYTES = 0x500 };

/* A class named "Bad<TAB>Name<LF><0xff>" with fields "f<TAB>g" (int -5) and
 * "r<LF>q" (a String "a<TAB>b<LF>c\d<0xff>", Latin-1), held by a root. */
static GByteArray *hostile_file(void)
{
    bld b = start(8, "JAVA PROFILE 1.0.2");
    const char *names[] = {NULL,  "java/lang/Object", "java/lang/String", "java/lang/Class",
                           "Bad\tName\n\xff", "f\tg", "r\nq", "value", "[B"};
    for (int i = 1; i <= S_BYTES; i++)
        str(&b, (uint64_t)i, names[i]);
    load_class(&b, 1, C_OBJECT, S_OBJECT);
    load_class(&b, 2, C_STRING, S_STRING);
    load_class(&b, 3, C_CLASS, S_CLASS);
    load_class(&b, 4, C_BAD, S_BAD);
    load_class(&b, 5, C_BYTES, S_BYTES);
    /* ALLOC SITES: one site of Bad (class serial 4), trace 300 */
    rec(&b, HPROF_ALLOC_SITES);
    u2(&b, 0); u4(&b, 0); u4(&b, 100); u4(&b, 3); u8(&b, 200); u8(&b, 6); u4(&b, 1);
    u1(&b, 0); u4(&b, 4); u4(&b, 300); u4(&b, 48); u4(&b, 2); u4(&b, 96); u4(&b, 4);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    u1(&b, HPROF_GC_ROOT_UNKNOWN);
    id(&b, 0x1000);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    const uint64_t sf[] = {S_VALUE, HF_T_OBJECT};
    class_dump(&b, C_STRING, C_OBJECT, 8, 0, NULL, 1, sf);
    class_dump(&b, C_CLASS, C_OBJECT, 0, 0, NULL, 0, NULL);
    const uint64_t bf[] = {S_FG, HF_T_INT, S_RQ, HF_T_OBJECT};
    class_dump(&b, C_BAD, C_OBJECT, 12, 0, NULL, 2, bf);
    bld t = {g_byte_array_new(), 8, 0};
    u4(&t, (uint32_t)-5);
    id(&t, 0x1100);
    instance(&b, 0x1000, C_BAD, t.b->data, t.b->len);
    g_byte_array_set_size(t.b, 0);
    id(&t, 0x1200);
    instance(&b, 0x1100, C_STRING, t.b->data, t.b->len);
    g_byte_array_unref(t.b);
    prim_array(&b, 0x1200, HF_T_BYTE, 10, (const uint8_t *)"a\tb\nc\\d\xff\r\0", 1);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

static void test_hostile(void **state)
{
    GByteArray *bytes = hostile_file();
    char *path = th_write_temp(bytes->data, bytes->len);
    GError *e = NULL;
    hf_dump *d = hf_open(path, NULL, &e);
    assert_non_null(d);
    check_dump(d, "hostile", true);
    assert_contains(th_snap_file(d, 0, "tables/objects.tsv"),
                    "\n0x1000\tBad\\tName\\n\xff\t");
    assert_contains(th_snap_file(d, 0, "tables/references.tsv"), "\n0x1000\tr\\nq\t0x1100\n");
    assert_contains(th_snap_file(d, 0, "tables/classes.tsv"), "\n0x400\tBad\\tName\\n\xff\t");
    assert_contains(th_snap_file(d, 0, "tables/sites.tsv"),
                    "record\trank\ttrace\tinuse_objects\tinuse_space\talloc_objects\talloc_space\t"
                    "class\n1\t1\t300\t2\t48\t4\t96\tBad\\tName\\n\xff\n");
    char *dir = g_strdup("Bad\tName\n\xff");
    assert_contains(th_class_file(d, 0, dir, "table.tsv"),
                    "id\tshallow\tf\\tg\tr\\nq\n0x1000\t");
    assert_contains(th_class_file(d, 0, dir, "table.tsv"), "\t-5\t0x1100\n");
    assert_contains(th_class_file(d, 0, "java.lang.String", "table.tsv"),
                    "id\tshallow\tvalue\ttext\n0x1100\t");
    assert_contains(th_class_file(d, 0, "java.lang.String", "table.tsv"),
                    "\t0x1200\ta\\tb\\nc\\\\d\xc3\xbf\\r\\0\n");
    assert_contains(th_class_file(d, 0, "byte[]", "table.tsv"),
                    "\t10\t97,9,98,10,99,92,100,-1,13,0\n");
    g_free(dir);
    hf_dump_close(d);
    unlink(path);
    g_free(path);
    g_byte_array_unref(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writers),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_corpus_hprof),
        cmocka_unit_test(test_corpus_bmd),
        cmocka_unit_test(test_corpus_hprof_txt),
        cmocka_unit_test(test_corpus_gperf),
        cmocka_unit_test(test_fixtures_oemp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
