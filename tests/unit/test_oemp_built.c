/*
 * test_oemp_built.c - the OpenEdge memory profiler recording (.oemp)
 * decoder on recordings built here line by line (tests/unit/helpers.h:
 * th_oemp_*), for each section kind and each kind of damage, and on every
 * cut of a readable one.  test_oemp.c has the tokenizer, the readable
 * recordings and the lifetime index.
 */
#include "decoders/oemp/oemp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

/* ---- helpers -------------------------------------------------------------- */

static hf_dump *open_text(const char *text)
{
    return th_open_temp(text, strlen(text), NULL, NULL, NULL);
}

/* Everything a mount can show, rendered with a small budget, so no view
 * may crash or loop (used on damaged input); every object's name finds it,
 * and a scope link leads to an object of the snapshot. */
static void render_everything(hf_dump *d)
{
    th_render_everything(d, 64);
    for (uint32_t s = 0; s < d->ops->n_snapshots(d); s++) {
        for (uint64_t o = 0; o < d->ops->n_objects(d, s); o++) {
            char name[HF_NAME_MAX];
            hf_target to;
            d->ops->object_name(d, s, o, name);
            assert_int_equal(d->ops->object_find(d, s, name), (int64_t)o);
            if (th_link(d, d->ops->object.links, "scope", s, o, &to)) {
                assert_int_equal(to.kind, HF_TO_OBJECT);
                assert_true(d->ops->object_find(d, s, to.name) >= 0);
            }
        }
    }
}

/* ---- recordings built here ------------------------------------------------ */

#define V2_HDR(seq) \
    "2 77 " #seq " \"2024-05-01T10:00:00.000+00:00\" \"AVM-Client\" \"_PROG\" \"\" \"\" 0 " \
    "\"u-1\" \"\" 0 \"app\" \"\" 1.5 \"12.8\" \"\" \"\"\n.\n"
#define V2_TRL(seq) "1000 0 0 0 0 0 0 0 0 \"_PROG\" " #seq "\n.\n"
#define V1_HDR(seq) \
    "1 77 " #seq " \"2024-05-01T10:00:00.000+00:00\" \"AVM-Client\" \"_PROG\" \"\" \"\" 0 " \
    "\"u-1\" \"\" 0 \"\" \"\" 1.5\n.\n"
#define V1_TRL "1000 0 0 0 0 0 0\n.\n"

static void test_sections(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    th_oemp_aobj(a, 1, 1, 100, 1, 0, 1, 0, 0, 0);   /* Procedure: SrcId 1 */
    th_oemp_aobj(a, 2, 2, 200, 2, 5, 2, 1, 0, 0);   /* OOABL Obj: SrcId 2, scope 1 */
    th_oemp_aobj(a, 3, 3, 300, 2, 6, 0, 0, 0, 1);   /* builtin by BioTypId 1 */
    th_oemp_aobj(a, 4, 3, 400, 2, 7, 0, 0, 2, 1);   /* builtin with NameId 2 */
    th_oemp_aobj(a, 5, 4, 500, 1, 3, 0, 0, 1, 0);   /* DB Connection NameId 1 */
    th_oemp_aobj(a, 6, 5, 600, 1, 4, 0, 0, 0, 0);   /* Buffer: no name */
    th_oemp_aobj(a, 7, 9, 700, 1, 4, 0, 0, 0, 0);   /* type not in the catalog */
    th_oemp_aobj(a, 8, 4, 800, 1, 4, 0, 0, 99, 0);  /* NameId not in the list */
    th_oemp_snap(t, 1, "\"General\" 1\n", TH_OEMP_ACAT, "\"Progress.Lang.Object\" 1\n",
                 "1 1000 1 1\n", "1 \"start.p\" 0\n2 \"Foo.cls\" 0\n",
                 "1 \"sports2000\"\n2 \"List<Foo>\"\n", "1 1 0 0\n2 2 1 9\n", a->str, "", "");
    th_oemp_snap(t, 2, "", "", "", "1 2000 1 1\n", "", "", "", "", "2 2 250 0 0 0\n5 4 430 0 0 0\n",
                 "6 123\n");
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->ops->n_snapshots(d), 2);
    const char *want[] = {"1\tProcedure\tstart.p",   "2\tOOABL Obj\tFoo.cls",
                          "3\tOO Builtin\tProgress.Lang.Object", "4\tOO Builtin\tList<Foo>",
                          "5\tDB Connection\tsports2000", "6\tBuffer\t",
                          "7\ttype 9\t",             "8\tDB Connection\t<NameId 99 unknown>"};
    char *c = th_snap_file_needed(d, 0, "created");
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        /* "ID\tBYTES\tTYPE\tNAME" */
        char *line = g_strdup_printf("%.*s\t%d\t%s", 1, want[i], (int)(i + 1) * 100, want[i] + 2);
        if (!th_has_line(c, line))
            fail_msg("created lacks '%s':\n%s", line, c);
        g_free(line);
    }
    g_free(c);
    assert_true(th_has_problem(d, "type 9 is not in AppObjCatalog"));
    assert_true(th_has_problem(d, "NameId 99 is not in OtherNameList"));
    c = th_snap_file_needed(d, 1, "changed");
    assert_string_equal(c, "# id\tbytes_before\tbytes_after\tdelta\ttype\tname\n"
                           "2\t200\t250\t50\tOOABL Obj\tFoo.cls\n"
                           "5\t500\t430\t-70\tDB Connection\tsports2000\n"); /* no '+' */
    g_free(c);
    c = th_snap_file_needed(d, 1, "deleted");
    assert_string_equal(c, "# id\tbytes\tdeltime\ttype\tname\n6\t600\t123\tBuffer\t\n");
    g_free(c);
    c = th_snap_file_needed(d, 1, "platform");
    assert_true(th_has_line(c, "1\t2000\t1\t1\tGeneral"));
    g_free(c);
    c = th_snap_file_needed(d, 1, "info");
    assert_true(th_has_line(c, "live objects: 7"));
    assert_true(th_has_line(c, "live bytes: 2980")); /* 3600 + 50 - 70 - 600 */
    assert_true(th_has_line(c, "changed bytes: -20"));
    g_free(c);
    char *o = th_object_file(d, 1, "2", "info");
    assert_true(th_has_line(o, "scope: 1"));
    g_free(o);
    o = th_object_file(d, 1, "2", "stack");
    assert_string_equal(o, "Foo.cls:5\nstart.p:9\n");
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

/* A scope whose object is gone: named in info, no link (it would dangle). */
static void test_scope_gone(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    th_oemp_aobj(a, 1, 1, 100, 0, 0, 0, 0, 0, 0);
    th_oemp_aobj(a, 2, 5, 10, 0, 0, 0, 1, 0, 0);
    th_oemp_aobj(a, 3, 5, 10, 0, 0, 0, 999, 0, 0); /* never recorded */
    th_oemp_snap(t, 1, "", TH_OEMP_ACAT, "", "", "", "", "", a->str, "", "");
    th_oemp_snap(t, 2, "", "", "", "", "", "", "", "", "", "1 5\n");
    hf_dump *d = open_text(t->str);
    hf_target to;
    assert_true(th_object_link(d, 0, "2", "scope", &to));
    assert_string_equal(to.name, "1");
    assert_false(th_object_link(d, 1, "2", "scope", &to));
    char *info = th_object_file(d, 1, "2", "info");
    assert_true(th_has_line(info, "scope: 1 (not live in this snapshot)"));
    g_free(info);
    assert_false(th_object_link(d, 0, "3", "scope", &to));
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

/* AppObjIds are read as any unsigned 64-bit number, so object names have
 * up to 20 digits, and each finds its object; only the one spelling of a
 * number is a name (decoder.c's parse_id, not hf_parse_decimal, which stops
 * at 19 digits). */
static void test_big_ids(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    th_oemp_aobj(a, 9999999999999999999ull, 1, 100, 0, 0, 0, 0, 0, 0);  /* 19 digits */
    th_oemp_aobj(a, 10000000000000000000ull, 1, 200, 0, 0, 0, 0, 0, 0); /* 20 */
    th_oemp_aobj(a, UINT64_MAX, 1, 300, 0, 0, 0, 0, 0, 0);
    th_oemp_snap(t, 1, "", TH_OEMP_ACAT, "", "", "", "", "", a->str, "", "");
    hf_dump *d = open_text(t->str);
    char *names = th_object_names(d, 0);
    assert_string_equal(names, "9999999999999999999 10000000000000000000 18446744073709551615");
    g_free(names);
    assert_int_equal(d->ops->object_find(d, 0, "18446744073709551615"), 2);
    assert_int_equal(d->ops->object_find(d, 0, "18446744073709551616"), -1); /* too big */
    assert_int_equal(d->ops->object_find(d, 0, "010000000000000000000"), -1);
    assert_int_equal(d->ops->object_find(d, 0, "+9999999999999999999"), -1);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

static void test_wrong_columns(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    th_oemp_aobj(a, 1, 1, 100, 1, 0, 1, 0, 0, 0);
    g_string_append(a, "2 1 200 0 0 0 1 0 1 0 0 0 0 0 0\n");        /* 15 columns */
    g_string_append(a, "3 1 300 0 0 0 1 0 1 0 0 0 0 0 0 0 77\n");   /* 17 columns */
    g_string_append(a, "4 1 \"four hundred\" 0 0 0 1 0 1 0 0 0 0 0 0 0\n"); /* not a number */
    g_string_append(a, "\"x\" 1 500 0 0 0 1 0 1 0 0 0 0 0 0 0\n");  /* id not a number */
    th_oemp_snap(t, 1, "", TH_OEMP_ACAT, "", "1 1 1\n", "1 \"a.p\" 0\n", "", "1 1 0 0\n", a->str,
                 "", "9\n");
    hf_dump *d = open_text(t->str);
    char *names = th_object_names(d, 0);
    assert_string_equal(names, "1 3 4");
    g_free(names);
    assert_true(th_has_problem(d, "15 columns, expected 16; line skipped"));
    assert_true(th_has_problem(d, "17 columns, expected 16; the first 16 read"));
    assert_true(th_has_problem(d, "column 3 is not an integer"));
    assert_true(th_has_problem(d, "id in column 1 is not a number"));
    assert_true(th_has_problem(d, "PlatObjData): 3 columns, expected 4"));
    assert_true(th_has_problem(d, "DeletedObjs): 1 columns, expected 2"));
    char *o = th_object_file(d, 0, "4", "info");
    assert_true(th_has_line(o, "bytes: 0"));
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

static void test_unknown_values(void **state)
{
    GString *t = g_string_new(NULL);
    th_oemp_snap(t, 1, "", TH_OEMP_ACAT, "", "", "1 ? 0\n", "", "1 1 0 0\n",
                 "1 1 ? ? ? ? 1 ? 1 ? ? ? ? ? ? ?\n", "", "");
    th_oemp_snap(t, 2, "", "", "", "", "", "", "", "", "1 1 ? 5 5 0\n", "");
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->ops->n_objects(d, 0), 1);
    char *o = th_object_file(d, 1, "1", "info");
    assert_true(th_has_line(o, "bytes: 0"));
    assert_true(th_has_line(o, "created: ?"));
    assert_true(th_has_line(o, "line: ?"));
    assert_true(th_has_line(o, "name: ?")); /* SrcName is the unknown value */
    assert_true(th_has_line(o, "abk: 5"));  /* from the change line */
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
}

/* Version 1: AppObjData holds new and changed objects; names and nodes come
 * after the objects that use them in the same snapshot. */
static void test_v1_order(void **state)
{
    GString *t = g_string_new(NULL);
    g_string_append(t, V1_HDR(5));
    g_string_append(t, ".\n\"Procedure\" 1\n\"OOABL Obj\" 2\n.\n.\n"); /* catalogs */
    g_string_append(t, "10 2 64 0 0 1 3 4 7 0 0 0 0 0 0 0\n.\n");    /* AppObjData */
    g_string_append(t, ".\n.\n3 7 0 0\n.\n7 \"Late.cls\" 0\n.\n.\n");   /* PData Del Nodes ABL Other */
    g_string_append(t, V1_TRL);
    g_string_append(t, V1_HDR(9));
    g_string_append(t, ".\n.\n.\n10 2 96 0 0 1 3 4 7 0 0 0 0 0 0 0\n.\n.\n.\n.\n.\n.\n");
    g_string_append(t, V1_TRL);
    g_string_append(t, V1_HDR(12));
    g_string_append(t, ".\n.\n.\n.\n.\n10 7\n.\n.\n.\n.\n");
    g_string_append(t, V1_TRL);
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->problems->len, 0);
    assert_int_equal(d->ops->snapshot_number(d, 1), 9);
    char *o = th_object_file(d, 0, "10", "info");
    assert_true(th_has_line(o, "name: Late.cls"));
    assert_true(th_has_line(o, "bytes: 64"));
    g_free(o);
    o = th_object_file(d, 1, "10", "info");
    assert_true(th_has_line(o, "bytes: 96"));
    g_free(o);
    char *c = th_snap_file_needed(d, 1, "changed");
    assert_true(th_has_line(c, "10\t64\t96\t32\tOOABL Obj\tLate.cls"));
    g_free(c);
    assert_int_equal(d->ops->n_objects(d, 2), 0);
    c = th_snap_file_needed(d, 2, "deleted");
    assert_true(th_has_line(c, "10\t96\t7\tOOABL Obj\tLate.cls"));
    g_free(c);
    hf_dump_close(d);
    g_string_free(t, TRUE);
}

static void test_object_events(void **state)
{
    GString *t = g_string_new(NULL), *a = g_string_new(NULL);
    th_oemp_aobj(a, 1, 1, 10, 0, 0, 0, 0, 0, 0);
    th_oemp_aobj(a, 2, 1, 20, 0, 0, 0, 0, 0, 0);
    th_oemp_snap(t, 1, "", TH_OEMP_ACAT, "", "", "", "", "", a->str, "", "");
    g_string_truncate(a, 0);
    th_oemp_aobj(a, 1, 1, 11, 0, 0, 0, 0, 0, 0); /* created again while live (V2) */
    th_oemp_aobj(a, 3, 1, 30, 0, 0, 0, 0, 0, 0); /* created and deleted here */
    th_oemp_snap(t, 2, "", "", "", "", "", "", "", a->str, "77 1 5 0 0 0\n",
                 "2 1\n3 2\n2 3\n99 4\n");
    g_string_truncate(a, 0);
    th_oemp_aobj(a, 2, 1, 22, 0, 0, 0, 0, 0, 0); /* id used again after deletion */
    th_oemp_snap(t, 4, "", "", "", "", "", "", "", a->str, "3 1 5 0 0 0\n", "");
    hf_dump *d = open_text(t->str);
    assert_true(th_has_problem(d, "object 1 created again; read as a change"));
    assert_true(th_has_problem(d, "changed object 77 was never created"));
    assert_true(th_has_problem(d, "deleted object 2 was deleted in snapshot 2"));
    assert_true(th_has_problem(d, "deleted object 99 was never created"));
    assert_true(th_has_problem(d, "object id 2 used again after its deletion in snapshot 2"));
    assert_true(th_has_problem(d, "changed object 3 was deleted in snapshot 2"));
    char *names = th_object_names(d, 1);
    assert_string_equal(names, "1");
    g_free(names);
    char *c = th_snap_file_needed(d, 1, "created");
    assert_true(th_has_line(c, "3\t30\tProcedure\t")); /* listed, though gone at the end */
    g_free(c);
    c = th_snap_file_needed(d, 1, "deleted");
    assert_true(th_has_line(c, "3\t30\t2\tProcedure\t"));
    g_free(c);
    names = th_object_names(d, 2);
    assert_string_equal(names, "1 2");
    g_free(names);
    char *o = th_object_file(d, 2, "2", "info");
    assert_true(th_has_line(o, "bytes: 22"));
    assert_true(th_has_line(o, "created in snapshot: 4"));
    g_free(o);
    o = th_object_file(d, 1, "1", "info");
    assert_true(th_has_line(o, "bytes: 11"));
    g_free(o);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
    g_string_free(a, TRUE);
}

static void test_structure(void **state)
{
    /* A lost '.' damages one snapshot; the next header starts the next. */
    GString *t = g_string_new(NULL);
    g_string_append(t, V2_HDR(1));
    g_string_append(t, ".\n\"Procedure\" 1\n.\n.\n.\n.\n.\n.\n");        /* to AppObjData */
    g_string_append(t, "1 1 10 0 0 0 0 0 0 0 0 0 0 0 0 0\n");          /* no '.' after it */
    g_string_append(t, V2_HDR(2));
    g_string_append(t, ".\n.\n.\n.\n.\n.\n.\n2 1 20 0 0 0 0 0 0 0 0 0 0 0 0 0\n.\n.\n.\n");
    g_string_append(t, V2_TRL(2));
    g_string_append(t, "stray line\n");
    g_string_append(t, V2_HDR(2)); /* sequence number repeated */
    g_string_append(t, ".\n.\n.\n.\n.\n.\n.\n.\n.\n.\n");
    g_string_append(t, V2_TRL(2));
    hf_dump *d = open_text(t->str);
    assert_int_equal(d->ops->n_snapshots(d), 3);
    assert_int_equal(d->ops->snapshot_number(d, 2), 3);
    assert_true(th_has_problem(d, "a new snapshot begins before this one ended"));
    assert_true(th_has_problem(d, "line outside any snapshot"));
    assert_true(th_has_problem(d, "sequence number 2 does not follow 2; shown as 3"));
    char *names = th_object_names(d, 1);
    assert_string_equal(names, "1 2");
    g_free(names);
    char *info = th_snap_file_needed(d, 2, "info");
    assert_true(th_has_line(info, "SnapshotSeq: 2"));
    assert_true(th_has_line(info, "directory: 3 (SnapshotSeq missing or out of order)"));
    g_free(info);
    info = th_snap_file_needed(d, 0, "info");
    assert_true(th_has_line(info, "complete: no (8 of 12 sections; ends in AppObjData)"));
    g_free(info);
    render_everything(d);
    hf_dump_close(d);
    g_string_free(t, TRUE);
}

static void test_refused(void **state)
{
    GError *e = NULL;
    const char *v3 = "3 1 1 \"t\" \"s\" \"tag\" \"\" \"\" 0 \"u\"\n.\n";
    assert_null(th_open_temp(v3, strlen(v3), NULL, NULL, &e));
    assert_non_null(strstr(e->message, "version 3 is not supported"));
    g_clear_error(&e);
    const char *cut = "1 3277 1 \"2022\" \"AS-4\" \"_AUTO\" \"";
    assert_null(th_open_temp(cut, strlen(cut), NULL, NULL, &e));
    assert_non_null(e);
    g_clear_error(&e);
}

/* Cutting small-v1.oemp at every byte: never a crash, never a live count
 * that disagrees with the objects listed; complete snapshots stay right. */
static void test_truncation(void **state)
{
    char *p = th_fixture("small-v1.oemp");
    gchar *text;
    gsize len;
    assert_true(g_file_get_contents(p, &text, &len, NULL));
    g_free(p);
    /* the end of the third snapshot's header line */
    const char *third = strstr(text, "1 3277 3 ");
    assert_non_null(third);
    size_t third_end = (size_t)(strchr(third, '\n') - text) + 1;
    for (size_t n = 1; n < len; n++) {
        GError *e = NULL;
        hf_dump *d = th_open_temp(text, n, NULL, NULL, &e);
        if (!d) {
            assert_non_null(e);
            g_clear_error(&e);
            continue;
        }
        uint32_t ns = d->ops->n_snapshots(d);
        assert_true(ns >= 1 && ns <= 3);
        /* a cut between two snapshots (or before the last newline) leaves
         * a clean recording; anywhere else it is a problem */
        bool between = (text[n - 1] == '\n' && strncmp(text + n, "1 3277 ", 7) == 0) ||
                       (text[n] == '\n' && strncmp(text + n + 1, "1 3277 ", 7) == 0) ||
                       n == len - 1;
        if (!between && d->problems->len == 0)
            fail_msg("cut at %zu: no problem reported", n);
        if (n >= third_end) {
            assert_int_equal(ns, 3);
            char *names = th_object_names(d, 1);
            assert_string_equal(names, "1001 1002 1003 1004 1006 1007 1008");
            g_free(names);
        }
        render_everything(d);
        hf_dump_close(d);
    }
    g_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sections),       cmocka_unit_test(test_wrong_columns),
        cmocka_unit_test(test_unknown_values), cmocka_unit_test(test_v1_order),
        cmocka_unit_test(test_object_events),  cmocka_unit_test(test_structure),
        cmocka_unit_test(test_refused),        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_scope_gone),     cmocka_unit_test(test_big_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
