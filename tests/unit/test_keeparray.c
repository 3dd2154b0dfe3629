/*
 * test_keeparray.c - arrays bound for an index file (decoders/core/
 * keeparray.h) and their pages given to the file once written
 * (keepfile.h's hf_keepw_add_array, hf_keepw_map_back).
 *
 * An array is zeroed and page-aligned; mapped over a file holding its
 * bytes it keeps them, and the daemon's anonymous memory drops by its
 * size; a file at an offset off a page, or holding other bytes, leaves it
 * as it was; written by hf_keepw_write, its section starts on a page and
 * map_back maps it, but not once another file took the path.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/core/keeparray.h"
#include "decoders/core/keepfile.h"

#define MIB (1024 * 1024)

/* RssAnon of this process, bytes. */
static uint64_t rss_anon(void)
{
    char *s = NULL;
    assert_true(g_file_get_contents("/proc/self/status", &s, NULL, NULL));
    const char *at = strstr(s, "RssAnon:");
    assert_non_null(at);
    uint64_t kb = g_ascii_strtoull(at + 8, NULL, 10);
    g_free(s);
    return kb * 1024;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 2654435761u >> 13 ^ seed);
}

/* A temporary file holding `pad` zero bytes then n bytes of p; its fd. */
static int file_of(const uint8_t *p, size_t n, size_t pad, char **path)
{
    *path = g_build_filename(g_get_tmp_dir(), "heapfs-keeparray.XXXXXX", NULL);
    int fd = g_mkstemp(*path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)pad), 0);
    assert_int_equal(pwrite(fd, p, n, (off_t)pad), (ssize_t)n);
    return fd;
}

static void test_new_free(void **state)
{
    (void)state;
    size_t pg = hf_keeparray_align();
    assert_true(pg >= 4096 && (pg & (pg - 1)) == 0);
    for (size_t n = 0; n < 3 * pg; n += pg / 2 + 1) {
        uint8_t *p = hf_keeparray_new(n);
        assert_int_equal((uintptr_t)p % pg, 0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xab, n);
        hf_keeparray_free(p);
    }
    hf_keeparray_free(NULL);
}

static void test_map(void **state)
{
    (void)state;
    size_t n = 64 * MIB + 1000, pg = hf_keeparray_align();
    uint8_t *p = hf_keeparray_new(n);
    fill(p, n, 7);
    uint8_t *want = g_malloc(n);
    memcpy(want, p, n);
    char *path;
    int fd = file_of(p, n, 3 * pg, &path);

    assert_int_equal(hf_keeparray_map(p, n, fd, 3 * pg + 64), 0); /* off a page */
    uint64_t before = rss_anon();
    assert_int_equal(hf_keeparray_map(p, n, fd, 3 * pg), n / pg * pg);
    uint64_t after = rss_anon();
    assert_true(before - after >= 60 * MIB); /* given back, not copied */
    assert_memory_equal(p, want, n);
    assert_int_equal(hf_keeparray_map(p, n, fd, 3 * pg), 0); /* once */
    close(fd);
    unlink(path); /* the mapping outlives the name */
    assert_memory_equal(p, want, n);
    hf_keeparray_free(p);
    g_free(path);
    g_free(want);
}

static void test_map_refuses_other_bytes(void **state)
{
    (void)state;
    size_t n = 1 * MIB;
    uint8_t *p = hf_keeparray_new(n), *other = g_malloc(n);
    fill(p, n, 1);
    fill(other, n, 1);
    other[n - 1] ^= 1; /* in the last page, which the check compares */
    char *path;
    int fd = file_of(other, n, 0, &path);
    uint8_t *want = g_memdup2(p, n);
    assert_int_equal(hf_keeparray_map(p, n, fd, 0), 0);
    assert_memory_equal(p, want, n);
    p[0] = 9; /* still the array's own, writable memory */
    close(fd);
    unlink(path);
    hf_keeparray_free(p);
    g_free(path);
    g_free(want);
    g_free(other);
}

/* hf_keepw_write then hf_keepw_map_back: the array's section starts on a
 * page; the pages are mapped, the small array is not; a path another
 * writer took since is left alone. */
static void test_write_map_back(void **state)
{
    (void)state;
    char *dir = g_dir_make_tmp("heapfs-keeparray.XXXXXX", NULL);
    char *path = g_build_filename(dir, "x.heapfs-index", NULL);
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(paths, path);
    hf_keepkey key = {.size = 1};
    size_t n = 8 * MIB + 12, pg = hf_keeparray_align();
    uint8_t *big = hf_keeparray_new(n), *small = hf_keeparray_new(100);
    fill(big, n, 3);
    fill(small, 100, 4);
    uint8_t *want = g_memdup2(big, n);

    hf_keepw *w = hf_keepw_new();
    hf_keepw_add(w, 1, "head", 4);
    hf_keepw_add_array(w, 2, small, 100);
    hf_keepw_add_array(w, 3, big, n);
    char *to = hf_keepw_write(w, &key, paths, 0600, NULL);
    assert_string_equal(to, path);
    hf_keepr *r = hf_keepr_open(&key, paths, NULL);
    assert_non_null(r);
    uint64_t len;
    const uint8_t *sec = hf_keepr_section(r, 3, &len);
    assert_int_equal(len, n);
    size_t all;
    assert_int_equal((size_t)(sec - hf_keepr_data(r, &all)) % pg, 0);
    hf_keepr_free(r);

    assert_int_equal(hf_keepw_map_back(w, to), n / pg * pg);
    assert_memory_equal(big, want, n);
    hf_keepw_free(w);

    /* another writer's file under the same name: not mapped */
    uint8_t *again = hf_keeparray_new(n);
    memcpy(again, want, n);
    w = hf_keepw_new();
    hf_keepw_add_array(w, 3, again, n);
    g_free(to);
    to = hf_keepw_write(w, &key, paths, 0600, NULL);
    hf_keepw *other = hf_keepw_new();
    hf_keepw_add_big(other, 3, want, n);
    g_free(hf_keepw_write(other, &key, paths, 0600, NULL));
    assert_int_equal(hf_keepw_map_back(w, to), 0);
    again[0] ^= 1; /* its own memory still */
    hf_keepw_free(other);
    hf_keepw_free(w);

    g_free(to);
    hf_keeparray_free(again);
    hf_keeparray_free(big);
    hf_keeparray_free(small);
    g_free(want);
    unlink(path);
    rmdir(dir);
    g_ptr_array_free(paths, TRUE);
    g_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_free),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_map_refuses_other_bytes),
        cmocka_unit_test(test_write_map_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
