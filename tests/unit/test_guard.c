/*
 * test_guard.c - fs/guard.c: a read past the end of a registered mapping
 * that shrank completes (zeros) and trips the guard; any number of
 * mappings can be registered; a removed mapping's trip is forgotten and
 * its slot reused.  The mappings are real files truncated under them.
 */
#include "tests/unit/helpers.h"

#include "fs/guard.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MANY 200 /* the guard once held 64 */

typedef struct {
    char *path;
    uint8_t *p;
    size_t len;
} mapping;

static mapping map_file(size_t len)
{
    mapping m = {.len = len};
    uint8_t *bytes = g_malloc(len);
    memset(bytes, 0x5a, len);
    m.path = th_write_temp(bytes, len);
    g_free(bytes);
    int fd = open(m.path, O_RDONLY);
    assert_true(fd >= 0);
    m.p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    assert_true(m.p != MAP_FAILED);
    return m;
}

static void unmap_file(mapping *m)
{
    munmap(m->p, m->len);
    unlink(m->path);
    g_free(m->path);
}

static void test_many_then_shrink(void **state)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    mapping m[MANY];
    for (int i = 0; i < MANY; i++) {
        m[i] = map_file(4 * page);
        hf_guard_add(m[i].p, m[i].len);
    }
    assert_false(hf_guard_tripped());
    /* the last one registered shrinks: its last page is past the end */
    assert_int_equal(truncate(m[MANY - 1].path, (off_t)page), 0);
    volatile uint8_t v = m[MANY - 1].p[3 * page];
    assert_int_equal(v, 0);
    assert_true(hf_guard_tripped());
    /* forgotten once removed; its slot serves the next one */
    hf_guard_remove(m[MANY - 1].p);
    assert_false(hf_guard_tripped());
    unmap_file(&m[MANY - 1]);
    m[MANY - 1] = map_file(2 * page);
    hf_guard_add(m[MANY - 1].p, m[MANY - 1].len);
    assert_int_equal(truncate(m[MANY - 1].path, 0), 0);
    v = m[MANY - 1].p[0];
    assert_int_equal(v, 0);
    assert_true(hf_guard_tripped());
    for (int i = 0; i < MANY; i++) {
        hf_guard_remove(m[i].p);
        unmap_file(&m[i]);
    }
    assert_false(hf_guard_tripped());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_then_shrink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
