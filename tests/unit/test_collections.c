/*
 * test_collections.c - the collection reader (decoders/heap/collections.c)
 * and its views on a small HPROF file built here with the JDK 6 layouts a
 * JDK 17 program cannot make (the mount test t_collections.sh has those):
 * HashMap$Entry chains, a subclass of HashMap declaring a field `size` of
 * its own (HashMap's must be read), a JDK 6 LinkedList (a header sentinel
 * and Entry element/next), an ArrayDeque whose head is past its tail, and
 * a JDK 6 ConcurrentHashMap of segments; and the waste/ views on equal
 * arrays, an array of zeros and boxes of equal values.
 */
#include "tests/unit/helpers.h"
#include "tests/unit/hprofbld.h"

#include "decoders/heap/build.h"
#include "decoders/heap/collections.h"
#include "decoders/heap/render.h"

enum {
    S_OBJECT = 1, S_INTEGER, S_HASHMAP, S_ENTRY, S_MYMAP, S_LIST, S_LENTRY, S_DEQUE, S_CHM,
    S_SEGMENT, S_HENTRY, S_OBJARR, S_TABLE, S_SIZE, S_KEY, S_VALUE, S_NEXT, S_HEADER,
    S_ELEMENT, S_PREVIOUS, S_ELEMENTS, S_HEAD, S_TAIL, S_SEGMENTS, S_COUNT, S_N
};
static const char *const names[S_N] = {
    NULL, "java/lang/Object", "java/lang/Integer", "java/util/HashMap", "java/util/HashMap$Entry",
    "my/Map", "java/util/LinkedList", "java/util/LinkedList$Entry", "java/util/ArrayDeque",
    "java/util/concurrent/ConcurrentHashMap", "java/util/concurrent/ConcurrentHashMap$Segment",
    "java/util/concurrent/ConcurrentHashMap$HashEntry", "[Ljava/lang/Object;", "table", "size",
    "key", "value", "next", "header", "element", "previous", "elements", "head", "tail",
    "segments", "count"};
/* class ids: 0x100 * the name's string id */
#define CID(s) ((uint64_t)(s) * 0x100)
/* objects */
enum {
    O_MAP = 0x10000, O_MYMAP = 0x10100, O_LIST = 0x10200, O_DEQUE = 0x10300, O_CHM = 0x10400,
    O_TABLE = 0x11000, O_E = 0x11100, O_INT = 0x12000, O_LE = 0x13000, O_ELEMS = 0x14000,
    O_SEGS = 0x15000, O_SEG = 0x15100, O_STABLE = 0x15200, O_HE = 0x15300, O_MYTABLE = 0x16000
};

/* An instance whose data is given as (type, value) pairs, in instance-data order. */
static void inst(bld *b, uint64_t oid, uint64_t cid, int n, const uint64_t *tv)
{
    bld t = {g_byte_array_new(), 8, 0};
    for (int i = 0; i < n; i++) {
        if (tv[2 * i] == HF_T_OBJECT)
            id(&t, tv[2 * i + 1]);
        else
            u4(&t, (uint32_t)tv[2 * i + 1]);
    }
    instance(b, oid, cid, t.b->data, t.b->len);
    g_byte_array_unref(t.b);
}
#define O HF_T_OBJECT
#define I HF_T_INT
#define INST(oid, cid, ...)                                                                \
    do {                                                                                   \
        const uint64_t tv_[] = {__VA_ARGS__};                                              \
        inst(&b, oid, cid, (int)(G_N_ELEMENTS(tv_) / 2), tv_);                             \
    } while (0)
#define CLASS(cid, super, ...)                                                             \
    do {                                                                                   \
        const uint64_t f_[] = {__VA_ARGS__};                                               \
        class_dump(&b, cid, super, 0, 0, NULL, (int)(G_N_ELEMENTS(f_) / 2), f_);           \
    } while (0)

static GByteArray *jdk6_file(void)
{
    bld b = start(8, "JAVA PROFILE 1.0.2");
    for (int i = 1; i < S_N; i++)
        str(&b, (uint64_t)i, names[i]);
    for (int i = S_OBJECT; i <= S_OBJARR; i++)
        load_class(&b, (uint32_t)i, CID(i), (uint64_t)i);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    class_dump(&b, CID(S_OBJECT), 0, 0, 0, NULL, 0, NULL);
    class_dump(&b, CID(S_OBJARR), CID(S_OBJECT), 0, 0, NULL, 0, NULL);
    CLASS(CID(S_INTEGER), CID(S_OBJECT), S_VALUE, I);
    CLASS(CID(S_HASHMAP), CID(S_OBJECT), S_TABLE, O, S_SIZE, I);
    CLASS(CID(S_ENTRY), CID(S_OBJECT), S_KEY, O, S_VALUE, O, S_NEXT, O);
    CLASS(CID(S_MYMAP), CID(S_HASHMAP), S_SIZE, I);
    CLASS(CID(S_LIST), CID(S_OBJECT), S_HEADER, O, S_SIZE, I);
    CLASS(CID(S_LENTRY), CID(S_OBJECT), S_ELEMENT, O, S_NEXT, O, S_PREVIOUS, O);
    CLASS(CID(S_DEQUE), CID(S_OBJECT), S_ELEMENTS, O, S_HEAD, I, S_TAIL, I);
    CLASS(CID(S_CHM), CID(S_OBJECT), S_SEGMENTS, O);
    CLASS(CID(S_SEGMENT), CID(S_OBJECT), S_TABLE, O, S_COUNT, I);
    CLASS(CID(S_HENTRY), CID(S_OBJECT), S_KEY, O, S_VALUE, O, S_NEXT, O);
    for (int i = 0; i < 16; i++) /* Integer(i) */
        INST(O_INT + 0x10 * i, CID(S_INTEGER), I, i);
    /* HashMap of 3: bucket 0 holds 1 -> 2 then 3 -> 4, bucket 2 holds 5 -> null */
    uint64_t table[16] = {O_E, 0, O_E + 0x20};
    obj_array(&b, O_TABLE, CID(S_OBJARR), 16, table);
    INST(O_E, CID(S_ENTRY), O, O_INT + 0x10, O, O_INT + 0x20, O, O_E + 0x10);
    INST(O_E + 0x10, CID(S_ENTRY), O, O_INT + 0x30, O, O_INT + 0x40, O, 0);
    INST(O_E + 0x20, CID(S_ENTRY), O, O_INT + 0x50, O, 0, O, 0);
    INST(O_MAP, CID(S_HASHMAP), O, O_TABLE, I, 3);
    /* my.Map: its own size (999) first, then HashMap's (1) */
    uint64_t mytable[2] = {O_E + 0x30, 0};
    obj_array(&b, O_MYTABLE, CID(S_OBJARR), 2, mytable);
    INST(O_E + 0x30, CID(S_ENTRY), O, O_INT + 0x60, O, O_INT + 0x70, O, 0);
    INST(O_MYMAP, CID(S_MYMAP), I, 999, O, O_MYTABLE, I, 1);
    /* LinkedList of 2 (7, 8): header <-> a <-> b <-> header */
    INST(O_LE, CID(S_LENTRY), O, 0, O, O_LE + 0x10, O, O_LE + 0x20);
    INST(O_LE + 0x10, CID(S_LENTRY), O, O_INT + 0x70, O, O_LE + 0x20, O, O_LE);
    INST(O_LE + 0x20, CID(S_LENTRY), O, O_INT + 0x80, O, O_LE, O, O_LE + 0x10);
    INST(O_LIST, CID(S_LIST), O, O_LE, I, 2);
    /* ArrayDeque of 8 slots, head 6, tail 2: 9, 10, 11, 12 */
    uint64_t elems[8] = {O_INT + 0xb0, O_INT + 0xc0, 0, 0, 0, 0, O_INT + 0x90, O_INT + 0xa0};
    obj_array(&b, O_ELEMS, CID(S_OBJARR), 8, elems);
    INST(O_DEQUE, CID(S_DEQUE), O, O_ELEMS, I, 6, I, 2);
    /* ConcurrentHashMap (JDK 6) of two segments, the second with 13 -> 14 */
    uint64_t segs[2] = {O_SEG, O_SEG + 0x10}, stable[4] = {0, O_HE, 0, 0}, none[4] = {0};
    obj_array(&b, O_SEGS, CID(S_OBJARR), 2, segs);
    obj_array(&b, O_STABLE, CID(S_OBJARR), 4, stable);
    obj_array(&b, O_STABLE + 0x80, CID(S_OBJARR), 4, none);
    INST(O_HE, CID(S_HENTRY), O, O_INT + 0xd0, O, O_INT + 0xe0, O, 0);
    INST(O_SEG, CID(S_SEGMENT), O, O_STABLE + 0x80, I, 0);
    INST(O_SEG + 0x10, CID(S_SEGMENT), O, O_STABLE, I, 1);
    INST(O_CHM, CID(S_CHM), O, O_SEGS);
    prim_array(&b, 0x17000, HF_T_INT, 1, (const uint8_t *)"\0\0\0\1", 4);
    /* waste: two equal int[3], an int[20] of zeros, a second Integer(1) */
    const uint8_t ints[12] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3}, zeros[80] = {0};
    prim_array(&b, 0x17100, HF_T_INT, 3, ints, 4);
    prim_array(&b, 0x17200, HF_T_INT, 3, ints, 4);
    prim_array(&b, 0x17300, HF_T_INT, 20, zeros, 4);
    INST(0x17400, CID(S_INTEGER), I, 1);
    /* damaged: a HashMap whose only entry is its own next */
    uint64_t loop[1] = {0x18100};
    obj_array(&b, 0x18200, CID(S_OBJARR), 1, loop);
    INST(0x18100, CID(S_ENTRY), O, O_INT + 0x10, O, 0, O, 0x18100);
    INST(0x18000, CID(S_HASHMAP), O, 0x18200, I, 1);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

static void expect_entries(hf_dump *d, uint64_t oid, const char *want)
{
    char name[32];
    g_snprintf(name, sizeof name, "0x%" G_GINT64_MODIFIER "x", (guint64)oid);
    char *got = th_object_file(d, 0, name, "entries");
    assert_string_equal(got, want);
    g_free(got);
}

/* text holds needle (text stays the caller's). */
#define assert_in(text, needle) assert_contains(g_strdup(text), needle)

static void test_jdk6(void **state)
{
    assert_true(hf_hcoll_table_sorted());
    th_set_budget(50); /* every view read in chunks too, and compared with the whole */
    GByteArray *bytes = jdk6_file();
    hf_dump *d = th_open_temp(bytes->data, bytes->len, NULL, NULL, NULL);
    const hf_heap *h = (const hf_heap *)d;
    uint64_t w16 = hf_heap_array_size(h, HF_T_OBJECT, 16) - hf_heap_array_size(h, HF_T_OBJECT, 3);
    uint64_t w8 = hf_heap_array_size(h, HF_T_OBJECT, 8) - hf_heap_array_size(h, HF_T_OBJECT, 4);
    uint64_t ws = hf_heap_array_size(h, HF_T_OBJECT, 4) * 2 - hf_heap_array_size(h, HF_T_OBJECT, 1) -
                  hf_heap_array_size(h, HF_T_OBJECT, 0);
    char *inst = th_snap_file_needed(d, 0, "collections/instances");
    char *want = g_strdup_printf(
        "# id\tsize\tcapacity\tfill_percent\twasted\tbytes\tclass\n"
        "0x10000\t3\t16\t18.75\t%" G_GUINT64_FORMAT "\t", (guint64)w16);
    assert_in(inst, want);
    g_free(want);
    assert_in(inst, "\n0x10100\t1\t2\t50.00\t");      /* HashMap's size, not my.Map's */
    assert_in(inst, "\n0x10200\t2\t2\t100.00\t0\t");  /* linked: nothing to save */
    want = g_strdup_printf("\n0x10300\t4\t8\t50.00\t%" G_GUINT64_FORMAT "\t", (guint64)w8);
    assert_in(inst, want);
    g_free(want);
    want = g_strdup_printf("\n0x10400\t1\t8\t12.50\t%" G_GUINT64_FORMAT "\t", (guint64)ws);
    assert_in(inst, want);
    g_free(want);
    unsigned lines = 0;
    for (const char *c = inst; *c; c++)
        lines += *c == '\n';
    assert_int_equal(1 + 6, lines); /* the header and the six collections */

    expect_entries(d, O_MAP, "# key\tvalue\twhat\n"
                                           "0x12010\t0x12020\tInteger(1) = Integer(2)\n"
                                           "0x12030\t0x12040\tInteger(3) = Integer(4)\n"
                                           "0x12050\t0x0\tInteger(5) = null\n");
    expect_entries(d, O_LIST, "# index\telement\twhat\n"
                                            "0\t0x12070\tInteger(7)\n1\t0x12080\tInteger(8)\n");
    expect_entries(d, O_DEQUE, "# index\telement\twhat\n0\t0x12090\tInteger(9)\n"
                                             "1\t0x120a0\tInteger(10)\n2\t0x120b0\tInteger(11)\n"
                                             "3\t0x120c0\tInteger(12)\n");
    expect_entries(d, O_CHM, "# key\tvalue\twhat\n"
                                           "0x120d0\t0x120e0\tInteger(13) = Integer(14)\n");
    g_free(inst);
    /* a loop ends: at most two steps per object of the snapshot */
    char *looped = th_object_file(d, 0, "0x18000", "entries");
    lines = 0;
    for (const char *c = looped; *c; c++)
        lines += *c == '\n';
    assert_true(lines > 1 && lines <= 2 * hf_heap_n_objects(d, 0) + 3);
    g_free(looped);
    assert_false(th_object_has(d, 0, "0x12010", "entries"));
    assert_false(th_object_has(d, 0, "0x11000", "entries"));
    assert_false(th_object_has(d, 0, "0x13000", "entries"));
    assert_false(th_object_has(d, 0, "0x17000", "entries"));

    assert_contains(th_snap_file_needed(d, 0, "collections/classes"), "\t0\t0\t0\t1\tjava.util.LinkedList\n"); /* (75,100] */
    char *small = th_snap_file_needed(d, 0, "waste/collections");
    assert_in(small, "# empty\tempty_bytes\tone\tone_bytes\tclass\n");
    assert_in(small, "\tmy.Map\n");
    g_free(small);
    char *want_w = g_strdup_printf("\n2\t%" G_GUINT64_FORMAT "\t3\t0x17100\tint[]\n",
                                   (guint64)hf_heap_array_size(h, HF_T_INT, 3));
    assert_contains(th_snap_file_needed(d, 0, "waste/arrays"), want_w);
    g_free(want_w);
    assert_contains(th_snap_file_needed(d, 0, "waste/zeros"),
                    "# id\tlength\tzeros\tbytes\tclass\n0x17300\t20\t20\t");
    assert_lacks(th_snap_file_needed(d, 0, "waste/zeros"), "0x17100");
    uint64_t box = hf_heap_class(hf_heap_snap(h, 0), th_class(d, 0, "java.lang.Integer"))->shallow;
    want_w = g_strdup_printf("\n17\t%" G_GUINT64_FORMAT "\t16\t%" G_GUINT64_FORMAT
                             "\tjava.lang.Integer\n", (guint64)(17 * box), (guint64)box);
    assert_contains(th_snap_file_needed(d, 0, "waste/boxed"), want_w);
    g_free(want_w);
    th_render_everything(d, 100);
    hf_dump_close(d);
    g_byte_array_unref(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jdk6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
