/*
 * test_model.c - the common part of every dump (decoders/core/model.h):
 * the wait for after_mount.  Without a begin nothing waits; after a begin,
 * a waiter returns only once end was called, and every waiter does.
 */
#include "tests/unit/helpers.h"

#include "decoders/core/model.h"

static gint returned;

static gpointer waiter(gpointer d)
{
    hf_dump_await_after_mount(d);
    g_atomic_int_inc(&returned);
    return NULL;
}

static void test_after_mount_wait(void **state)
{
    (void)state;
    hf_dump d = {0};
    hf_dump_await_after_mount(&d); /* no begin: at once */
    hf_dump_after_mount_begin(&d);
    g_atomic_int_set(&returned, 0);
    GThread *t[3];
    for (int i = 0; i < 3; i++)
        t[i] = g_thread_new("waiter", waiter, &d);
    g_usleep(100 * 1000);
    assert_int_equal(g_atomic_int_get(&returned), 0);
    hf_dump_after_mount_end(&d);
    for (int i = 0; i < 3; i++)
        g_thread_join(t[i]);
    assert_int_equal(g_atomic_int_get(&returned), 3);
    hf_dump_await_after_mount(&d); /* ended: at once */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_after_mount_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
