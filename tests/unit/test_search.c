/* Unit tests for decoders/core/search.h: lower and upper bounds, and arrays
 * sorted by serial.  The oracle is a linear scan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "decoders/core/search.h"

#include <string.h>

/* ---- the oracle ---- */

static size_t scan_u64(const uint64_t *a, size_t n, uint64_t key, bool upper)
{
    for (size_t i = 0; i < n; i++)
        if (upper ? a[i] > key : a[i] >= key)
            return i;
    return n;
}

static size_t scan_u32(const uint32_t *a, size_t n, uint32_t key, bool upper)
{
    for (size_t i = 0; i < n; i++)
        if (upper ? a[i] > key : a[i] >= key)
            return i;
    return n;
}

/* Every key from min-1 to max+1 against the scan, both widths. */
static void check_all_keys(const uint64_t *a, size_t n)
{
    uint32_t *b = g_new(uint32_t, n + 1);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint32_t)a[i];
    uint64_t from = n && a[0] ? a[0] - 1 : 0, to = n ? a[n - 1] + 1 : 2;
    for (uint64_t key = from; key <= to; key++) {
        assert_int_equal(hf_lower_bound_u64(a, n, key), scan_u64(a, n, key, false));
        assert_int_equal(hf_upper_bound_u64(a, n, key), scan_u64(a, n, key, true));
        assert_int_equal(hf_lower_bound_u32(b, n, (uint32_t)key),
                         scan_u32(b, n, (uint32_t)key, false));
        assert_int_equal(hf_upper_bound_u32(b, n, (uint32_t)key),
                         scan_u32(b, n, (uint32_t)key, true));
    }
    g_free(b);
}

/* ---- typed bounds ---- */

static void test_empty(void **state)
{
    uint64_t a64[1] = {7};
    uint32_t a32[1] = {7};
    assert_int_equal(hf_lower_bound_u64(a64, 0, 7), 0);
    assert_int_equal(hf_upper_bound_u64(a64, 0, 7), 0);
    assert_int_equal(hf_lower_bound_u32(a32, 0, 7), 0);
    assert_int_equal(hf_upper_bound_u32(a32, 0, 7), 0);
    assert_int_equal(hf_lower_bound_u64(NULL, 0, 0), 0);
    assert_int_equal(hf_serial_find(NULL, 0, 8, 1), -1);
}

static void test_one_element(void **state)
{
    uint64_t a[1] = {10};
    assert_int_equal(hf_lower_bound_u64(a, 1, 9), 0);  /* below */
    assert_int_equal(hf_lower_bound_u64(a, 1, 10), 0); /* equal */
    assert_int_equal(hf_lower_bound_u64(a, 1, 11), 1); /* above */
    assert_int_equal(hf_upper_bound_u64(a, 1, 9), 0);
    assert_int_equal(hf_upper_bound_u64(a, 1, 10), 1);
    assert_int_equal(hf_upper_bound_u64(a, 1, 11), 1);
    check_all_keys(a, 1);
}

static void test_duplicates_first_match(void **state)
{
    uint64_t a[] = {1, 3, 3, 3, 3, 5, 8, 8};
    assert_int_equal(hf_lower_bound_u64(a, 8, 3), 1); /* the first 3 */
    assert_int_equal(hf_upper_bound_u64(a, 8, 3), 5); /* past the last 3 */
    assert_int_equal(hf_lower_bound_u64(a, 8, 8), 6);
    assert_int_equal(hf_upper_bound_u64(a, 8, 8), 8);
    uint64_t same[] = {4, 4, 4, 4, 4, 4, 4};
    assert_int_equal(hf_lower_bound_u64(same, 7, 4), 0);
    assert_int_equal(hf_upper_bound_u64(same, 7, 4), 7);
    check_all_keys(a, 8);
    check_all_keys(same, 7);
}

static void test_absent_keys(void **state)
{
    uint64_t a[] = {10, 20, 30, 40};
    assert_int_equal(hf_lower_bound_u64(a, 4, 0), 0);    /* below all */
    assert_int_equal(hf_lower_bound_u64(a, 4, 25), 2);   /* between */
    assert_int_equal(hf_lower_bound_u64(a, 4, 41), 4);   /* above all */
    assert_int_equal(hf_upper_bound_u64(a, 4, 25), 2);
    assert_int_equal(hf_lower_bound_u64(a, 4, UINT64_MAX), 4);
    uint64_t ends[] = {0, UINT64_MAX};
    assert_int_equal(hf_lower_bound_u64(ends, 2, 0), 0);
    assert_int_equal(hf_upper_bound_u64(ends, 2, 0), 1);
    assert_int_equal(hf_lower_bound_u64(ends, 2, UINT64_MAX), 1);
    assert_int_equal(hf_upper_bound_u64(ends, 2, UINT64_MAX), 2);
    uint32_t b[] = {10, 20, 30, 40};
    assert_int_equal(hf_lower_bound_u32(b, 4, 5), 0);
    assert_int_equal(hf_lower_bound_u32(b, 4, 35), 3);
    assert_int_equal(hf_lower_bound_u32(b, 4, UINT32_MAX), 4);
    check_all_keys(a, 4);
}

static void test_large_against_scan(void **state)
{
    GRand *r = g_rand_new_with_seed(12345);
    for (int round = 0; round < 40; round++) {
        size_t n = (size_t)g_rand_int_range(r, 0, 3000);
        uint64_t *a = g_new(uint64_t, n + 1);
        uint64_t v = (uint64_t)g_rand_int_range(r, 0, 5);
        for (size_t i = 0; i < n; i++) {
            v += (uint64_t)g_rand_int_range(r, 0, 4); /* steps of 0: repeats */
            a[i] = v;
        }
        check_all_keys(a, n);
        g_free(a);
    }
    g_rand_free(r);
}

/* ---- the generic bound, over part of a range ---- */

typedef struct {
    uint32_t serial; /* first: the serial helpers read it */
    uint32_t order;  /* position when added: shows stability */
    uint64_t payload;
} rec;

typedef struct {
    const rec *recs;
    uint64_t payload;
} by_payload;

static bool payload_below(const void *ud, uint64_t i)
{
    const by_payload *k = ud;
    return k->recs[i].payload < k->payload;
}

static void test_generic_range(void **state)
{
    rec r[] = {{0, 0, 5}, {0, 0, 6}, {0, 0, 6}, {0, 0, 9}, {0, 0, 12}, {0, 0, 12}};
    by_payload k = {r, 6};
    assert_int_equal(hf_lower_bound(0, 6, payload_below, &k), 1);
    assert_int_equal(hf_lower_bound(2, 6, payload_below, &k), 2); /* from lo */
    assert_int_equal(hf_lower_bound(3, 6, payload_below, &k), 3);
    k.payload = 100;
    assert_int_equal(hf_lower_bound(0, 6, payload_below, &k), 6);
    assert_int_equal(hf_lower_bound(0, 4, payload_below, &k), 4); /* to hi */
    assert_int_equal(hf_lower_bound(4, 4, payload_below, &k), 4); /* empty */
    k.payload = 0;
    assert_int_equal(hf_lower_bound(0, 6, payload_below, &k), 0);
}

/* ---- arrays sorted by serial ---- */

static GArray *recs_of(const uint32_t *serials, guint n)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(rec));
    for (guint i = 0; i < n; i++) {
        rec x = {serials[i], i, 1000 + i};
        g_array_append_val(a, x);
    }
    return a;
}

static void note_dropped(const void *elem, void *ud)
{
    const rec *x = elem;
    g_string_append_printf(ud, "%u/%u ", x->serial, x->order);
}

static void test_serial_sort_dedup(void **state)
{
    uint32_t s[] = {7, 3, 7, 1, 3, 9, 7, 1};
    GArray *a = recs_of(s, G_N_ELEMENTS(s));
    hf_serial_sort(a);
    /* ascending, equal serials in the order they were added */
    static const uint32_t want_serial[] = {1, 1, 3, 3, 7, 7, 7, 9};
    static const uint32_t want_order[] = {3, 7, 1, 4, 0, 2, 6, 5};
    for (guint i = 0; i < a->len; i++) {
        assert_int_equal(g_array_index(a, rec, i).serial, want_serial[i]);
        assert_int_equal(g_array_index(a, rec, i).order, want_order[i]);
    }
    GString *log = g_string_new(NULL);
    assert_int_equal(hf_serial_dedup(a, note_dropped, log), 4);
    assert_string_equal(log->str, "1/7 3/4 7/2 7/6 ");
    assert_int_equal(a->len, 4);
    static const uint32_t kept_order[] = {3, 1, 0, 5};
    for (guint i = 0; i < a->len; i++)
        assert_int_equal(g_array_index(a, rec, i).order, kept_order[i]); /* the first of each */
    assert_int_equal(g_array_index(a, rec, 3).payload, 1005);
    assert_int_equal(hf_serial_dedup(a, NULL, NULL), 0);
    assert_int_equal(a->len, 4);
    g_string_free(log, TRUE);
    g_array_free(a, TRUE);

    GArray *e = g_array_new(FALSE, FALSE, sizeof(rec));
    hf_serial_sort(e);
    assert_int_equal(hf_serial_dedup(e, NULL, NULL), 0);
    assert_int_equal(hf_serial_find_array(e, 1), -1);
    g_array_free(e, TRUE);
}

static void test_serial_find(void **state)
{
    uint32_t s[] = {2, 4, 4, 4, 9, 100, 4000000000u};
    GArray *a = recs_of(s, G_N_ELEMENTS(s));
    hf_serial_sort(a);
    assert_int_equal(hf_serial_find_array(a, 4), 1); /* the first of equal serials */
    assert_int_equal(hf_serial_find_array(a, 2), 0);
    assert_int_equal(hf_serial_find_array(a, 4000000000u), 6);
    assert_int_equal(hf_serial_find_array(a, 1), -1);   /* below */
    assert_int_equal(hf_serial_find_array(a, 5), -1);   /* between */
    assert_int_equal(hf_serial_find_array(a, UINT32_MAX), -1); /* above */
    assert_int_equal(hf_serial_find(a->data, 1, sizeof(rec), 2), 0);
    assert_int_equal(hf_serial_find(a->data, 1, sizeof(rec), 4), -1); /* only n elements */
    g_array_free(a, TRUE);

    /* large: against a scan */
    GRand *r = g_rand_new_with_seed(99);
    GArray *b = g_array_new(FALSE, FALSE, sizeof(rec));
    for (guint i = 0; i < 5000; i++) {
        rec x = {(uint32_t)g_rand_int_range(r, 0, 2000), i, 0};
        g_array_append_val(b, x);
    }
    hf_serial_sort(b);
    for (uint32_t key = 0; key <= 2001; key++) {
        int64_t want = -1;
        for (guint i = 0; i < b->len && want < 0; i++)
            if (g_array_index(b, rec, i).serial == key)
                want = i;
        assert_int_equal(hf_serial_find_array(b, key), want);
    }
    g_array_free(b, TRUE);
    g_rand_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_one_element),
        cmocka_unit_test(test_duplicates_first_match),
        cmocka_unit_test(test_absent_keys),
        cmocka_unit_test(test_large_against_scan),
        cmocka_unit_test(test_generic_range),
        cmocka_unit_test(test_serial_sort_dedup),
        cmocka_unit_test(test_serial_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
