/*
 * test_v8.c - V8 heap snapshots (decoders/v8/): the JSON scanner, a
 * hand-made snapshot read through the model with its dominators and
 * retained sizes worked out by hand below, gzip, a series, every
 * truncation, and hostile files.  Real snapshots from Node.js, checked
 * against Chrome DevTools' own code, are tests/mount/t_v8.sh's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/pprof/proto.h"
#include "decoders/v8/v8.h"

/* ---- the scanner ---- */

static void test_json_decode(void **state)
{
    const char *s = "[\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\\ud800x\"]";
    GString *out = g_string_new(NULL);
    assert_true(v8_json_decode((const uint8_t *)s, strlen(s), 1, out));
    assert_string_equal(out->str, "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
    g_string_truncate(out, 0);
    assert_false(v8_json_decode((const uint8_t *)s, 6, 1, out)); /* cut inside */
    g_string_free(out, TRUE);
}

static void test_json_numbers_and_depth(void **state)
{
    const char *s = "9007199254740993";
    v8_json j = {(const uint8_t *)s, (const uint8_t *)s, (const uint8_t *)s + strlen(s)};
    uint64_t v;
    assert_false(v8_json_uint(&j, &v));
    assert_string_equal(j.error, "a number too large");
    const char *neg = "-1";
    v8_json k = {(const uint8_t *)neg, (const uint8_t *)neg, (const uint8_t *)neg + 2};
    assert_false(v8_json_uint(&k, &v));
    assert_string_equal(k.error, "a negative number");
    for (int depth = 64; depth <= 65; depth++) {
        GString *t = g_string_new(NULL);
        for (int i = 0; i < depth; i++)
            g_string_append_c(t, '[');
        for (int i = 0; i < depth; i++)
            g_string_append_c(t, ']');
        v8_json m = {(const uint8_t *)t->str, (const uint8_t *)t->str,
                     (const uint8_t *)t->str + t->len};
        assert_int_equal(v8_json_skip(&m), depth == 64);
        if (depth == 65)
            assert_string_equal(m.error, "nested more than 64 deep");
        g_string_free(t, TRUE);
    }
}

/* ---- a hand-made snapshot ----
 *
 *   node  id  type       name         size  edges
 *   0     1   synthetic  ""           0     element 1 -> 1, shortcut g -> 2
 *   1     3   synthetic  (GC roots)   0     element 1 -> 3
 *   2     5   object     Global       10    property a -> 3, property b -> 4,
 *                                           weak w -> 5
 *   3     7   object     Thing        20    property x -> 6, element 0 -> 7
 *   4     9   object     Thing        30    property x -> 6
 *   5     11  object     Weak         40
 *   6     13  string     hello\n...   16
 *   7     15  array      (object...)  100
 *
 * Worked by DevTools' rules (scan.c's header): the root's shortcut makes
 * Global a user root, so D's 100 bytes move to its one owner A (A 120,
 * D 0); the page is Global and what it reaches strongly (A, B, C, D), so
 * (GC roots) -> A, from outside the page into it, does not count; Weak is
 * held only weakly and hangs under the root.  Dominators: (GC roots),
 * Global, Weak: the root; A, B, C: Global; D: A.  Retained: D 0, A 120,
 * B 30, C 16, Global 10 + 120 + 30 + 16 = 176, Weak 40, root 216.
 */
#define SNAP_HEAD                                                                          \
    "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","  \
    "\"edge_count\",\"trace_node_id\",\"detachedness\"],\"node_types\":[[\"hidden\","      \
    "\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\","          \
    "\"native\",\"synthetic\"],\"string\",\"number\",\"number\",\"number\",\"number\","    \
    "\"number\"],\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"                \
    "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\","      \
    "\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]},\"node_count\":8,"            \
    "\"edge_count\":9,\"trace_function_count\":0},\n"
#define SNAP_NODES                                                                         \
    "\"nodes\":[9,0,1,0,2,0,0,\n9,1,3,0,1,0,0,\n3,2,5,10,3,0,0,\n3,3,7,20,2,0,0,\n"        \
    "3,3,9,30,1,0,0,\n3,4,11,40,0,0,0,\n2,5,13,16,0,0,0,\n1,6,15,100,0,0,0],\n"
#define SNAP_EDGES                                                                         \
    "\"edges\":[1,1,7,5,7,14,\n1,1,21,\n2,8,21,2,9,28,6,10,35,\n2,11,42,1,0,49,\n"         \
    "2,11,42],\n"
#define SNAP_STRINGS                                                                       \
    "\"strings\":[\"\",\"(GC roots)\",\"Global\",\"Thing\",\"Weak\","                       \
    "\"hello\\nworld\\u00e9\",\"(object elements)\",\"g\",\"a\",\"b\",\"w\",\"x\"]}"

static const char snap[] = SNAP_HEAD SNAP_NODES SNAP_EDGES SNAP_STRINGS;

/* th_open_temp, the file removed at once when it does not open. */
static hf_dump *open_snap(const char *text, size_t len, char **path, GError **err)
{
    hf_dump *d = th_open_temp(text, len, NULL, path, err);
    if (!d) {
        unlink(*path);
        g_clear_pointer(path, g_free);
    }
    return d;
}

static void assert_retained(hf_dump *d, const char *obj, const char *line)
{
    char *r = th_object_file(d, 0, obj, "retained");
    if (!strstr(r, line))
        fail_msg("%s retained:\n%s\nlacks %s", obj, r, line);
    g_free(r);
}

static void assert_dominator(hf_dump *d, const char *obj, const char *want)
{
    hf_target to;
    assert_true(th_object_link(d, 0, obj, "dominator", &to));
    if (strcmp(to.name, want) != 0)
        fail_msg("%s's dominator is %s, not %s", obj, to.name, want);
}

static void test_model(void **state)
{
    char *path;
    hf_dump *d = open_snap(snap, sizeof snap - 1, &path, NULL);
    assert_string_equal(d->ops->format, "v8");
    char *h = th_snap_file(d, 0, "histogram");
    assert_true(th_has_line(h, "2\t150\tThing"));
    assert_true(th_has_line(h, "1\t16\t(string)"));
    assert_true(th_has_line(h, "1\t0\t(array)"));
    g_free(h);
    assert_retained(d, "0x7", "retained: 120 ");
    assert_retained(d, "0xf", "retained: 0 ");
    assert_retained(d, "0x5", "retained: 176 ");
    assert_retained(d, "0xb", "retained: 40 ");
    assert_retained(d, "0x1", "retained: 216 ");
    assert_dominator(d, "0x3", "0x1");
    assert_dominator(d, "0x5", "0x1");
    assert_dominator(d, "0xb", "0x1");
    assert_dominator(d, "0x7", "0x5");
    assert_dominator(d, "0x9", "0x5");
    assert_dominator(d, "0xd", "0x5");
    assert_dominator(d, "0xf", "0x7");
    char *info = th_object_file(d, 0, "0x7", "info");
    assert_true(th_has_line(info, "size: 120"));
    assert_true(th_has_line(info, "self size in the file: 20"));
    assert_true(th_has_line(info, "devtools: @7"));
    g_free(info);
    char *edges = th_object_file(d, 0, "0x7", "edges");
    assert_string_equal(edges, "# type\tid\tname\nproperty\t0xd\tx\nelement\t0xf\t0\n");
    g_free(edges);
    uint64_t a = th_object(d, 0, "0x7");
    char name[HF_NAME_MAX];
    hf_target to;
    assert_int_equal(th_ref(d, 0, a, 1, name, &to), HF_REF_OK);
    assert_string_equal(name, "[0]");
    assert_string_equal(to.name, "0xf");
    assert_int_equal(th_ref_find(d, 0, a, "x"), 0);
    assert_int_equal(th_ref_find(d, 0, a, "[0]"), 1);
    char *strings = th_snap_file(d, 0, "strings");
    assert_string_equal(strings, "# id\ttext\n0xd\thello\\nworld\xc3\xa9\n");
    g_free(strings);
    char *value = th_object_file(d, 0, "0xd", "value");
    assert_string_equal(value, "hello\nworld\xc3\xa9");
    g_free(value);
    char *roots = th_snap_file(d, 0, "roots");
    assert_true(th_has_line(roots, "0x7\tThing\t(GC roots)"));
    assert_true(th_has_line(roots, "0x5\tGlobal\t(user roots)"));
    g_free(roots);
    char *probs = th_problems(d);
    assert_string_equal(probs, "");
    g_free(probs);
    th_render_everything(d, 16);
    th_close_temp(d, path);
}

static void test_gzip(void **state)
{
    GString *gz = g_string_new(NULL);
    hf_gzip_append((const uint8_t *)snap, sizeof snap - 1, gz);
    char *path;
    hf_dump *d = open_snap(gz->str, gz->len, &path, NULL);
    assert_string_equal(d->ops->format, "v8");
    assert_retained(d, "0x5", "retained: 176 ");
    char *info = th_snap_file(d, 0, "info");
    assert_true(th_has_line(info, "gzip: yes"));
    g_free(info);
    th_close_temp(d, path);
    g_string_free(gz, TRUE);
}

/* Two snapshots of one process: the second adds object 17, which `new`
 * lists; `leaks` needs a third. */
static void test_series(void **state)
{
    char *one = th_write_temp(snap, sizeof snap - 1);
    GString *two = g_string_new(snap);
    g_string_replace(two, "\"node_count\":8", "\"node_count\":9", 1);
    g_string_replace(two, "1,6,15,100,0,0,0]", "1,6,15,100,0,0,0,\n3,3,17,8,0,0,0]", 1);
    char *p2 = th_write_temp(two->str, two->len);
    const char *paths[] = {one, p2};
    GPtrArray *dumps = g_ptr_array_new();
    GError *e = NULL;
    assert_true(hf_open_files(paths, 2, NULL, dumps, &e));
    assert_int_equal(dumps->len, 1);
    hf_dump *d = g_ptr_array_index(dumps, 0);
    assert_int_equal(d->ops->n_snapshots(d), 2);
    char *n = th_snap_file(d, 1, "new");
    assert_string_equal(n, "# id\tshallow\tclass\n0x11\t8\tThing\n");
    g_free(n);
    assert_false(th_has_file(d, d->ops->snapshot.files, 1, 0, "leaks"));
    assert_false(th_has_file(d, d->ops->snapshot.files, 0, 0, "new"));
    char *p = th_problems(d);
    assert_true(strstr(p, "node_count") == NULL);
    g_free(p);
    hf_dump_close(d);
    g_ptr_array_free(dumps, TRUE);
    unlink(one);
    unlink(p2);
    g_free(one);
    g_free(p2);
    g_string_free(two, TRUE);
}

/* Allocation traces: A (0x7) was allocated in alloc() called from main();
 * the tree also holds a node no object names.  stacks.folded puts the root
 * first and the class last; sites lists the tree's own counts. */
static void test_traces(void **state)
{
    GString *t = g_string_new(snap);
    g_string_replace(t, "\"edge_types\":", "\"trace_function_info_fields\":[\"function_id\","
                     "\"name\",\"script_name\",\"script_id\",\"line\",\"column\"],"
                     "\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\","
                     "\"size\",\"children\"],\"edge_types\":", 1);
    g_string_replace(t, "3,3,7,20,2,0,0", "3,3,7,20,2,3,0", 1);
    g_string_replace(t, "\"strings\":[", "\"trace_function_infos\":[0,12,0,0,0,0,1,13,15,1,10,"
                     "5,2,14,15,1,2,3],\"trace_tree\":[1,0,0,0,[2,2,0,0,[3,1,1,120,[]],"
                     "4,1,5,50,[]]],\"strings\":[", 1);
    g_string_replace(t, "\"x\"]}", "\"x\",\"(root)\",\"alloc\",\"main\",\"app.js\"]}", 1);
    char *path;
    hf_dump *d = open_snap(t->str, t->len, &path, NULL);
    char *p = th_problems(d);
    assert_string_equal(p, "");
    g_free(p);
    char *sites = th_snap_file(d, 0, "sites");
    assert_string_equal(sites, "# objects\tbytes\ttrace\tfunction\n"
                               "1\t120\t3\talloc (app.js:10:5)\n5\t50\t4\talloc (app.js:10:5)\n");
    g_free(sites);
    char *folded = th_snap_file(d, 0, "stacks.folded");
    assert_true(th_has_line(folded, "main;alloc;Thing 120"));
    assert_true(th_has_line(folded, "Thing 30"));
    g_free(folded);
    th_render_everything(d, 16);
    th_close_temp(d, path);
    /* a trace node naming a function the table lacks: listed, not followed */
    g_string_replace(t, "4,1,5,50,[]", "4,9,5,50,[]", 1);
    d = open_snap(t->str, t->len, &path, NULL);
    assert_true(th_has_problem(d, "trace node 4 names function 9 of 3"));
    th_render_everything(d, 16);
    th_close_temp(d, path);
    g_string_free(t, TRUE);
}

/* Every prefix opens (a partial snapshot, its problems listed) or fails
 * with one line; nothing crashes, and what opens renders. */
static void test_truncations(void **state)
{
    for (size_t cut = 1; cut < sizeof snap - 1; cut++) {
        GError *e = NULL;
        char *path;
        hf_dump *d = open_snap(snap, cut, &path, &e);
        if (d) {
            assert_true(d->n_problems > 0);
            th_render_everything(d, 64);
            th_close_temp(d, path);
        } else {
            assert_non_null(e);
            assert_null(strchr(e->message, '\n'));
            g_clear_error(&e);
        }
    }
}

static char *replaced(const char *from, const char *to)
{
    GString *s = g_string_new(snap);
    assert_true(g_string_replace(s, from, to, 1) == 1);
    return g_string_free(s, FALSE);
}

/* An object of 5 GB (B's self size), past what 32 bits hold: its bytes
 * reach the retained sizes of all that dominate it whole, on one thread
 * and with the phases on two (the shallow sizes read beside the dominator
 * pass). */
static void test_object_past_4_gib(void **state)
{
    char *big = replaced("3,3,9,30,1,0,0", "3,3,9,5000000000,1,0,0");
    for (int threads = 1; threads <= 2; threads++) {
        g_setenv("HEAPFS_RETAINED_THREADS", threads == 1 ? "1" : "2", TRUE);
        char *path;
        hf_dump *d = open_snap(big, strlen(big), &path, NULL);
        assert_non_null(d);
        assert_retained(d, "0x9", "retained: 5000000000 ");
        assert_retained(d, "0x5", "retained: 5000000146 ");
        assert_retained(d, "0x1", "retained: 5000000186 ");
        th_close_temp(d, path);
        g_unsetenv("HEAPFS_RETAINED_THREADS");
    }
    g_free(big);
}

static void test_hostile(void **state)
{
    GError *e = NULL;
    char *path;
    /* meta without an id field */
    char *t = replaced("\"type\",\"name\",\"id\",", "\"type\",\"name\",\"uid\",");
    assert_null(open_snap(t, strlen(t), &path, &e));
    assert_non_null(strstr(e->message, "meta lacks"));
    g_clear_error(&e);
    g_free(t);
    /* an edge past the nodes array: left out, listed */
    t = replaced("2,11,42],", "2,11,4200],");
    hf_dump *d = open_snap(t, strlen(t), &path, NULL);
    assert_true(th_has_problem(d, "1 edges lead past the nodes array"));
    th_render_everything(d, 64);
    th_close_temp(d, path);
    g_free(t);
    /* more edges promised than given; a name past the strings */
    t = replaced("3,3,9,30,1,0,0", "3,3,9,30,3,0,0");
    d = open_snap(t, strlen(t), &path, NULL);
    assert_true(th_has_problem(d, "the last nodes lack theirs"));
    th_render_everything(d, 64);
    th_close_temp(d, path);
    g_free(t);
    t = replaced("3,4,11,40", "3,400,11,40");
    d = open_snap(t, strlen(t), &path, NULL);
    assert_true(th_has_problem(d, "1 node names past the strings array"));
    th_render_everything(d, 64);
    th_close_temp(d, path);
    g_free(t);
    /* no nodes at all, not even the root: refused, saying so */
    t = replaced(SNAP_NODES SNAP_EDGES, "\"nodes\":[],\n\"edges\":[],\n");
    assert_null(open_snap(t, strlen(t), &path, &e));
    assert_non_null(strstr(e->message, "no nodes"));
    g_clear_error(&e);
    g_free(t);
    /* a property named as an element ("[0]" for "x"): A's two refs keep
     * names of their own, and each lookup finds its own edge */
    t = replaced("\"w\",\"x\"]", "\"w\",\"[0]\"]");
    d = open_snap(t, strlen(t), &path, NULL);
    uint64_t a = th_object(d, 0, "0x7");
    char name[HF_NAME_MAX];
    hf_target to;
    assert_int_equal(th_ref(d, 0, a, 0, name, &to), HF_REF_OK);
    assert_string_equal(name, "[0]@0");
    assert_int_equal(th_ref(d, 0, a, 1, name, &to), HF_REF_OK);
    assert_string_equal(name, "[0]");
    assert_int_equal(th_ref_find(d, 0, a, "[0]@0"), 0);
    assert_int_equal(th_ref_find(d, 0, a, "[0]"), 1);
    th_render_everything(d, 64);
    th_close_temp(d, path);
    g_free(t);
    /* a snapshot whose meta is only named in a string: nothing to read */
    const char *nometa = "{\"snapshot\":{\"x\":[\"meta\",\"node_fields\"]},\"nodes\":[1]}";
    assert_null(open_snap(nometa, strlen(nometa), &path, &e));
    assert_non_null(strstr(e->message, "meta lacks"));
    g_clear_error(&e);
    /* deep nesting under a key nobody reads: a problem, the nodes stay */
    GString *deep = g_string_new(snap);
    g_string_truncate(deep, deep->len - 1);
    g_string_append(deep, ",\"extra\":");
    for (int i = 0; i < 100000; i++)
        g_string_append_c(deep, '[');
    d = open_snap(deep->str, deep->len, &path, NULL);
    assert_true(th_has_problem(d, "nested more than 64 deep"));
    th_close_temp(d, path);
    g_string_free(deep, TRUE);
    /* a negative number, a float */
    t = replaced("3,3,7,20,", "3,3,7,-20,");
    d = open_snap(t, strlen(t), &path, NULL);
    assert_true(th_has_problem(d, "a negative number"));
    th_close_temp(d, path);
    g_free(t);
}

int main(void)
{
    th_set_budget(16);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_decode),
        cmocka_unit_test(test_json_numbers_and_depth),
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_object_past_4_gib),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_traces),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
