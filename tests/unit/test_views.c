/* Unit tests for fs/views.c: exact sizes, whole vs checkpointed views. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "decoders/core/model.h"
#include "fs/views.h"

/* A view of `n` lines "line <i>\n", resumable at any line. */
typedef struct {
    uint64_t n;
    int calls;
} lines_arg;

static uint64_t render_lines(void *arg, uint64_t first, GString *out, size_t budget)
{
    lines_arg *a = arg;
    a->calls++;
    gsize start = out->len;
    for (uint64_t i = first; i < a->n; i++) {
        if (out->len - start >= budget)
            return i;
        g_string_append_printf(out, "line %" G_GUINT64_FORMAT "\n", (guint64)i);
    }
    return HF_DONE;
}

/* render_lines' byte counts without rendering ("line " + digits + "\n"). */
static uint64_t measure_lines(void *arg, uint64_t first, uint64_t *bytes, size_t budget)
{
    lines_arg *a = arg;
    uint64_t got = 0;
    for (uint64_t i = first; i < a->n; i++) {
        if (got >= budget) {
            *bytes += got;
            return i;
        }
        got += 6 + (uint64_t)snprintf(NULL, 0, "%" G_GUINT64_FORMAT, (guint64)i);
    }
    *bytes += got;
    return HF_DONE;
}

static GString *expected(uint64_t n)
{
    GString *s = g_string_new(NULL);
    lines_arg a = {n, 0};
    render_lines(&a, 0, s, SIZE_MAX);
    return s;
}

static void check_reads_m(hf_views *v, uint64_t key, hf_views_measure_fn m, lines_arg *a,
                          GString *want)
{
    assert_int_equal(hf_views_size(v, key, render_lines, m, a), want->len);
    char buf[5000];
    /* Reads at awkward offsets and sizes, including across chunk edges. */
    uint64_t offs[] = {0, 1, 999, 1000, 4095, want->len / 2, want->len - 3, want->len};
    for (size_t i = 0; i < G_N_ELEMENTS(offs); i++) {
        uint64_t off = offs[i];
        size_t got = hf_views_read(v, key, render_lines, m, a, buf, sizeof buf, off);
        size_t exp = off < want->len ? MIN(sizeof buf, want->len - off) : 0;
        assert_int_equal(got, exp);
        assert_memory_equal(buf, want->str + off, got);
    }
}

static void check_reads(hf_views *v, uint64_t key, lines_arg *a, GString *want)
{
    check_reads_m(v, key, NULL, a, want);
}

/* A measured view: its size without a render, the same bytes at every
 * offset, and a read renders about its own bytes, not the view. */
static void test_measured_view(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    hf_views *v = hf_views_new(c, 4096, 1 << 17);
    lines_arg a = {50000, 0};
    GString *want = expected(50000);
    assert_int_equal(hf_views_size(v, 3, render_lines, measure_lines, &a), want->len);
    assert_int_equal(a.calls, 0);
    check_reads_m(v, 3, measure_lines, &a, want);
    a.calls = 0;
    char buf[100];
    assert_int_equal(hf_views_read(v, 3, render_lines, measure_lines, &a, buf, sizeof buf,
                                   want->len / 3), sizeof buf);
    assert_memory_equal(buf, want->str + want->len / 3, sizeof buf);
    assert_int_equal(a.calls, 1); /* one render from the checkpoint, of about 1 KiB */
    g_string_free(want, TRUE);
    hf_views_free(v);
    hf_cache_free(c);
}

/* With a cache too small for every checkpoint, fewer are kept (the layout
 * stays cached) and reads stay exact. */
static void test_measured_view_small_cache(void **state)
{
    hf_cache *c = hf_cache_new(8192);
    hf_views *v = hf_views_new(c, 512, 1024);
    lines_arg a = {20000, 0};
    GString *want = expected(20000);
    check_reads_m(v, 4, measure_lines, &a, want);
    hf_cache_stats st;
    hf_cache_stats_get(c, &st);
    assert_int_equal(st.entries, 1);
    g_string_free(want, TRUE);
    hf_views_free(v);
    hf_cache_free(c);
}

static void test_small_view_kept_whole(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    hf_views *v = hf_views_new(c, 1024, 1 << 17);
    lines_arg a = {100, 0};
    GString *want = expected(100);
    check_reads(v, 7, &a, want);
    int calls = a.calls;
    char buf[64];
    hf_views_read(v, 7, render_lines, NULL, &a, buf, sizeof buf, 10);
    assert_int_equal(a.calls, calls); /* served from the cache */
    g_string_free(want, TRUE);
    hf_views_free(v);
    hf_cache_free(c);
}

static void test_big_view_served_from_checkpoints(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    hf_views *v = hf_views_new(c, 1024, 4096); /* views over 4 KiB not held */
    lines_arg a = {50000, 0};
    GString *want = expected(50000);
    check_reads(v, 8, &a, want);
    hf_cache_stats st;
    hf_cache_stats_get(c, &st);
    assert_true(st.bytes < want->len / 4); /* only the layout is cached */
    g_string_free(want, TRUE);
    hf_views_free(v);
    hf_cache_free(c);
}

static void test_no_cache_still_correct(void **state)
{
    hf_cache *c = hf_cache_new(0);
    hf_views *v = hf_views_new(c, 512, 0);
    lines_arg a = {3000, 0};
    GString *want = expected(3000);
    check_reads(v, 9, &a, want);
    g_string_free(want, TRUE);
    hf_views_free(v);
    hf_cache_free(c);
}

static void test_empty_view(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    hf_views *v = hf_views_new(c, 512, 4096);
    lines_arg a = {0, 0};
    assert_int_equal(hf_views_size(v, 1, render_lines, NULL, &a), 0);
    char buf[8];
    assert_int_equal(hf_views_read(v, 1, render_lines, NULL, &a, buf, sizeof buf, 0), 0);
    hf_views_free(v);
    hf_cache_free(c);
}

/* Items 0..n-1, item i a line only when i % 30 < 20; a call renders at
 * most 10 items whatever the budget, so some chunks are empty and their
 * checkpoints share an offset with the next one. */
static uint64_t render_gappy(void *arg, uint64_t first, GString *out, size_t budget)
{
    lines_arg *a = arg;
    a->calls++;
    for (uint64_t i = first; i < a->n; i++) {
        if (i - first == 10)
            return i;
        if (i % 30 < 20)
            g_string_append_printf(out, "line %" G_GUINT64_FORMAT "\n", (guint64)i);
    }
    return HF_DONE;
}

/* A read of a checkpointed view renders from the last checkpoint at or
 * before its offset: the right bytes at every offset, empty chunks
 * included, and never more than the chunk holding the offset, an empty
 * one and the next (not the view from its start). */
static void test_read_starts_at_the_last_checkpoint(void **state)
{
    hf_cache *c = hf_cache_new(1 << 20);
    hf_views *v = hf_views_new(c, 64, 0);
    lines_arg a = {3000, 0};
    GString *want = g_string_new(NULL);
    for (uint64_t i = 0; i < a.n; i++)
        if (i % 30 < 20)
            g_string_append_printf(want, "line %" G_GUINT64_FORMAT "\n", (guint64)i);
    assert_int_equal(hf_views_size(v, 5, render_gappy, NULL, &a), want->len);
    char buf[32];
    for (uint64_t off = 0; off <= want->len; off += 7) {
        a.calls = 0;
        size_t got = hf_views_read(v, 5, render_gappy, NULL, &a, buf, sizeof buf, off);
        assert_int_equal(got, MIN(sizeof buf, want->len - off));
        assert_memory_equal(buf, want->str + off, got);
        assert_true(a.calls <= 3);
    }
    g_string_free(want, TRUE);
    hf_views_free(v);
    hf_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_view_kept_whole),
        cmocka_unit_test(test_big_view_served_from_checkpoints),
        cmocka_unit_test(test_no_cache_still_correct),
        cmocka_unit_test(test_empty_view),
        cmocka_unit_test(test_read_starts_at_the_last_checkpoint),
        cmocka_unit_test(test_measured_view),
        cmocka_unit_test(test_measured_view_small_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
