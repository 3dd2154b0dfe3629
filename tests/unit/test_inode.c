/* Unit tests for fs/inode.c: the inode number layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

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
        hf_node n = hf_node_make((hf_node_kind)k, HF_SNAP_MAX - 1, HF_A_MAX - 1, HF_B_MAX - 1);
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
    assert_true(HF_N_KINDS <= 32);
    assert_int_equal(HF_N_OBJ_ENTRY_LAST - HF_N_OBJ_ENTRY + 1, HF_DIRS_MAX);
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
        cmocka_unit_test(test_rejects_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
