/* Unit tests for decoders/core/growthsvg.c (MOUNT/growth.svg), with a
 * fake dump whose snapshot s tallies names with bytes that follow s. */
#include "tests/unit/helpers.h"

#include "decoders/core/compare.h"

#include <stdlib.h>
#include <string.h>

/* Snapshot s: "grow K" has K * s bytes (K = 1..10), "fall" 5000 - s,
 * "flat" 300, and "twice" comes twice with s bytes each. */
static bool f_tally(hf_dump *d, uint32_t s, bool retained, hf_tally_fn fn, void *ud)
{
    if (retained)
        return false;
    if (!fn)
        return true;
    char name[32];
    for (int k = 1; k <= 10; k++) {
        g_snprintf(name, sizeof name, "grow %d", k);
        fn(ud, name, 1, (int64_t)k * s);
    }
    fn(ud, "fall", 1, 5000 - (int64_t)s);
    fn(ud, "flat", 1, 300);
    fn(ud, "twice", 1, s);
    fn(ud, "twice", 1, s);
    return true;
}

static const hf_dump_ops f_ops = {.format = "fake", .tally = f_tally};
static const hf_dump_ops no_tally = {.format = "none"};

/* The chart of n snapshots of the fake dump, numbered 10, 20, ... */
static char *chart(uint32_t n)
{
    hf_dump d = {.ops = &f_ops};
    hf_snapref *r = g_new(hf_snapref, n);
    uint64_t *num = g_new(uint64_t, n);
    for (uint32_t s = 0; s < n; s++) {
        r[s] = (hf_snapref){&d, s};
        num[s] = 10 * (s + 1);
    }
    GString *out = g_string_new(NULL);
    assert_true(hf_growth_chart_has(r, n));
    assert_int_equal(hf_growth_chart(r, num, n, 0, out, 1), HF_DONE);
    assert_int_equal(hf_growth_chart(r, num, n, 1, out, 1), HF_DONE);
    g_free(r);
    g_free(num);
    return g_string_free(out, FALSE);
}

/* The data-v of line `name`, as numbers, or NULL. */
static GArray *line(const char *svg, const char *name)
{
    char *pat = g_strdup_printf("data-name=\"%s\" data-v=\"", name);
    const char *at = strstr(svg, pat);
    g_free(pat);
    if (!at)
        return NULL;
    GArray *v = g_array_new(FALSE, FALSE, sizeof(int64_t));
    char *end;
    const char *q = strstr(at, "data-v=\"") + 8;
    while (*q != '"') {
        int64_t x = g_ascii_strtoll(q, &end, 10);
        g_array_append_val(v, x);
        q = *end == ' ' ? end + 1 : end;
    }
    return v;
}

static void test_lines(void **state)
{
    char *svg = chart(7);
    assert_non_null(strstr(svg, "data-snapshots=\"10 20 30 40 50 60 70\""));
    GArray *total = line(svg, "total");
    assert_non_null(total);
    assert_int_equal(total->len, 7);
    for (uint32_t s = 0; s < 7; s++) /* 55 s + 5000 - s + 300 + 2 s */
        assert_int_equal(g_array_index(total, int64_t, s), 56 * s + 5300);
    /* The 8 that grew most: grow 10 .. grow 3 (10 s .. 3 s); not twice
     * (2 s, its two rows added up), grow 2, fall or flat. */
    for (int k = 3; k <= 10; k++) {
        char name[32];
        g_snprintf(name, sizeof name, "grow %d", k);
        GArray *v = line(svg, name);
        assert_non_null(v);
        assert_int_equal(g_array_index(v, int64_t, 6), k * 6);
        g_array_free(v, TRUE);
    }
    assert_null(line(svg, "grow 2"));
    assert_null(line(svg, "twice"));
    assert_null(line(svg, "fall"));
    assert_null(line(svg, "flat"));
    g_array_free(total, TRUE);
    g_free(svg);
}

static void test_many_snapshots_sampled(void **state)
{
    char *svg = chart(1000);
    const char *at = strstr(svg, "data-snapshots=\"") + 16;
    char *list = g_strndup(at, strcspn(at, "\""));
    char **nums = g_strsplit(list, " ", -1);
    g_free(list);
    assert_int_equal(g_strv_length(nums), HF_GROWTH_POINTS);
    assert_string_equal(nums[0], "10");
    assert_string_equal(nums[HF_GROWTH_POINTS - 1], "10000");
    for (int k = 1; k < HF_GROWTH_POINTS; k++) { /* evenly spaced: 8 or 9 apart */
        long gap = (atol(nums[k]) - atol(nums[k - 1])) / 10;
        assert_true(gap == 8 || gap == 9);
    }
    GArray *v = line(svg, "grow 10");
    assert_int_equal(v->len, HF_GROWTH_POINTS);
    assert_int_equal(g_array_index(v, int64_t, HF_GROWTH_POINTS - 1), 10 * 999);
    assert_non_null(strstr(svg, "120 of the 1000 snapshots"));
    g_array_free(v, TRUE);
    g_strfreev(nums);
    g_free(svg);
}

static void test_needs_two_tallies(void **state)
{
    hf_dump d = {.ops = &f_ops}, none = {.ops = &no_tally};
    hf_snapref one[] = {{&d, 0}}, mixed[] = {{&d, 0}, {&none, 0}};
    assert_false(hf_growth_chart_has(one, 1));
    assert_false(hf_growth_chart_has(mixed, 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_many_snapshots_sampled),
        cmocka_unit_test(test_needs_two_tallies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
