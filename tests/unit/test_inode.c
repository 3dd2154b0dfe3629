/* Unit tests for fs/inode.c: the inode number layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib.h>

#include "decoders/core/model.h"
#include "fs/inode.h"

static void test_root_is_one(void **state)
{
    hf_node n = hf_node_make(HF_N_ROOT, 0, 0, 0);
    assert_int_equal(hf_ino_encode(&n), 1);
    hf_node back;
    assert_true(hf_ino_decode(1, &back));
    assert_int_equal(back.kind, HF_N_ROOT);
}

static void test_round_trip_extremes(void **state)
{
    for (int k = 1; k < HF_N_KINDS; k++) {
        uint32_t b = k == HF_N_ROOT_FILE ? HF_RF_N - 1 : HF_B_MAX - 1;
        hf_node n = hf_node_make((hf_node_kind)k, HF_SNAP_MAX - 1, HF_A_MAX - 1, b);
        uint64_t ino = hf_ino_encode(&n);
        assert_true(ino > 1);
        assert_int_equal(ino >> 63, 0); /* bit 63 stays free for views.c */
        hf_node back;
        assert_true(hf_ino_decode(ino, &back));
        assert_true(hf_node_equal(&n, &back));
    }
}

static void test_distinct(void **state)
{
    hf_node a = hf_node_make(HF_N_OBJECT, 1, 5, 0);
    hf_node b = hf_node_make(HF_N_OBJECT, 0, 5, 0);
    hf_node c = hf_node_make(HF_N_OBJ_FILE, 1, 5, 0);
    hf_node d = hf_node_make(HF_N_OBJ_ENTRY, 1, 5, 1);
    hf_node e = hf_node_make(HF_N_OBJ_ENTRY + 1, 1, 5, 1); /* same slot, next directory */
    hf_node f = hf_node_make(HF_N_OBJ_LINK, 1, 5, 1);
    assert_int_not_equal(hf_ino_encode(&a), hf_ino_encode(&b));
    assert_int_not_equal(hf_ino_encode(&a), hf_ino_encode(&c));
    assert_int_not_equal(hf_ino_encode(&c), hf_ino_encode(&d));
    assert_int_not_equal(hf_ino_encode(&d), hf_ino_encode(&e));
    assert_int_not_equal(hf_ino_encode(&d), hf_ino_encode(&f));
    /* every kind fits the 5 bits of the layout, one entry kind per
     * possible link directory */
    assert_true(HF_N_KINDS <= 1 << HF_KIND_BITS);
    /* inode.h's essay and docs/tree.md say 26 kinds are used, 6 free:
     * a new kind updates them */
    assert_int_equal(HF_N_KINDS, 26);
    assert_int_equal(HF_N_OBJ_ENTRY_LAST - HF_N_OBJ_ENTRY + 1, HF_DIRS_MAX);
}

/* Every kind with every file, link or slot it can name (a few of each
 * sort, both ends of each field) has its own number, which decodes back
 * to it: no two nodes share one (NFS file handles). */
static gint cmp_ino(gconstpointer x, gconstpointer y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void test_every_kind_and_file_unique(void **state)
{
    GArray *inos = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    const uint32_t snaps[] = {0, 1, HF_SNAP_MAX - 1};
    const uint64_t as[] = {0, 1, 2, HF_A_MAX - 1};
    for (int k = 0; k < HF_N_KINDS; k++)
        for (size_t si = 0; si < G_N_ELEMENTS(snaps); si++)
            for (size_t ai = 0; ai < G_N_ELEMENTS(as); ai++)
                for (uint32_t b = 0; b < HF_B_MAX; b += b < 40 ? 1 : 997) {
                    hf_node n = hf_node_make((hf_node_kind)k, snaps[si], as[ai], b), back;
                    if (k == HF_N_ROOT && (snaps[si] || as[ai] || b))
                        continue; /* the root is one node */
                    bool file_past = k == HF_N_ROOT_FILE && b >= HF_RF_N;
                    uint64_t ino = hf_ino_encode(&n);
                    assert_int_equal(hf_ino_decode(ino, &back), !file_past);
                    if (file_past)
                        continue;
                    assert_true(hf_node_equal(&n, &back));
                    g_array_append_val(inos, ino);
                }
    g_array_sort(inos, cmp_ino);
    for (guint i = 1; i < inos->len; i++)
        if (g_array_index(inos, uint64_t, i - 1) == g_array_index(inos, uint64_t, i))
            fail_msg("two nodes share inode number %#" G_GINT64_MODIFIER "x",
                     g_array_index(inos, uint64_t, i));
    assert_true(inos->len > 10000);
    g_array_free(inos, TRUE);
}

/* The files at the root are one kind, b says which: each has a number of
 * its own, and none past the table decodes. */
static void test_root_files_share_a_kind(void **state)
{
    for (uint32_t f = 0; f < HF_RF_N; f++)
        for (uint32_t g = f + 1; g < HF_RF_N; g++) {
            hf_node x = hf_node_make(HF_N_ROOT_FILE, 0, 0, f);
            hf_node y = hf_node_make(HF_N_ROOT_FILE, 0, 0, g);
            assert_int_not_equal(hf_ino_encode(&x), hf_ino_encode(&y));
        }
    hf_node past = hf_node_make(HF_N_ROOT_FILE, 0, 0, HF_RF_N), back;
    assert_false(hf_ino_decode(hf_ino_encode(&past), &back));
}

static void test_rejects_garbage(void **state)
{
    hf_node n;
    assert_false(hf_ino_decode(0, &n));
    assert_false(hf_ino_decode(1ull << 63, &n));
    assert_false(hf_ino_decode((uint64_t)HF_N_KINDS << 58, &n));
    assert_false(hf_ino_decode(2, &n)); /* kind 0 but not the root */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_is_one),
        cmocka_unit_test(test_round_trip_extremes),
        cmocka_unit_test(test_distinct),
        cmocka_unit_test(test_every_kind_and_file_unique),
        cmocka_unit_test(test_root_files_share_a_kind),
        cmocka_unit_test(test_rejects_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
