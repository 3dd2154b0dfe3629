/* Unit tests for decoders/core/workmem.c: the memory available to the
 * daemon (MemAvailable and memory cgroups, read from a made-up /proc and
 * /sys/fs/cgroup under a temporary root) and where arrays go (RAM within
 * the budget, nameless mapped files beyond it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "decoders/core/workmem.h"

/* root/path with text in it, directories made. */
static void put(const char *root, const char *path, const char *text)
{
    char *name = g_strconcat(root, path, NULL), *dir = g_path_get_dirname(name);
    assert_int_equal(g_mkdir_with_parents(dir, 0700), 0);
    assert_true(g_file_set_contents(name, text, -1, NULL));
    g_free(dir);
    g_free(name);
}

static char *fake_root(void)
{
    char *root = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    assert_non_null(root);
    put(root, "/proc/meminfo", "MemTotal:       24000000 kB\nMemFree:  100 kB\n"
                               "MemAvailable:   20000000 kB\nBuffers: 1 kB\n");
    return root;
}

static void rm_root(char *root)
{
    char *argv[] = {"rm", "-rf", root, NULL};
    assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                             NULL));
    g_free(root);
}

static void test_meminfo_alone(void **state)
{
    char *root = fake_root(), *why = NULL;
    put(root, "/proc/self/cgroup", "0::/\n");
    assert_int_equal(hf_mem_available(root, &why), 20000000ull * 1024);
    assert_string_equal(why, "MemAvailable");
    g_free(why);
    rm_root(root);
}

/* cgroup v2: the tighter of memory.max and memory.high, less what the
 * group holds beyond page cache, at the process's level or above it. */
static void test_cgroup_v2(void **state)
{
    char *root = fake_root(), *why = NULL;
    put(root, "/proc/self/cgroup", "0::/box/job\n");
    put(root, "/sys/fs/cgroup/box/job/memory.max", "max\n");
    put(root, "/sys/fs/cgroup/box/job/memory.current", "300000000\n");
    put(root, "/sys/fs/cgroup/box/job/memory.stat", "anon 100000000\nfile 200000000\n");
    put(root, "/sys/fs/cgroup/box/memory.max", "1073741824\n");
    put(root, "/sys/fs/cgroup/box/memory.high", "max\n");
    put(root, "/sys/fs/cgroup/box/memory.current", "500000000\n");
    put(root, "/sys/fs/cgroup/box/memory.stat", "anon 150000000\nfile 350000000\n");
    assert_int_equal(hf_mem_available(root, &why), 1073741824ull - 150000000);
    assert_string_equal(why, "cgroup /box/memory.max");
    g_free(why);
    put(root, "/sys/fs/cgroup/box/job/memory.high", "536870912\n");
    assert_int_equal(hf_mem_available(root, &why), 536870912ull - 100000000);
    assert_string_equal(why, "cgroup /box/job/memory.high");
    g_free(why);
    /* what auto keeps anonymous memory within a third of: the least limit */
    assert_int_equal(hf_mem_total(root), 536870912ull);
    rm_root(root);
    root = fake_root();
    put(root, "/proc/self/cgroup", "0::/\n");
    assert_int_equal(hf_mem_total(root), 24000000ull * 1024);
    rm_root(root);
}

/* The cgroups above the process are found once (/proc/self/cgroup and
 * which directories are memory cgroups); what they hold and their limits
 * are read every time. */
static void test_cgroup_levels_once(void **state)
{
    char *root = fake_root(), *why = NULL;
    put(root, "/proc/self/cgroup", "0::/box\n");
    put(root, "/sys/fs/cgroup/box/memory.max", "1073741824\n");
    put(root, "/sys/fs/cgroup/box/memory.current", "100000000\n");
    assert_int_equal(hf_mem_available(root, NULL), 1073741824ull - 100000000);
    char *self = g_strconcat(root, "/proc/self/cgroup", NULL);
    assert_int_equal(g_unlink(self), 0); /* not read again */
    g_free(self);
    put(root, "/sys/fs/cgroup/box/memory.current", "300000000\n"); /* read again */
    assert_int_equal(hf_mem_available(root, &why), 1073741824ull - 300000000);
    assert_string_equal(why, "cgroup /box/memory.max");
    g_free(why);
    rm_root(root);
}

/* The read system calls of the process so far (/proc/self/io's syscr,
 * which reading it adds one to), 0 when unknown. */
static uint64_t read_calls(void)
{
    char *text = NULL;
    uint64_t n = 0;
    if (g_file_get_contents("/proc/self/io", &text, NULL, NULL) && strstr(text, "syscr: "))
        n = g_ascii_strtoull(strstr(text, "syscr: ") + 7, NULL, 10);
    g_free(text);
    return n;
}

/* The processor count is looked up once (each lookup of glib's reads
 * /sys/devices/system/cpu/online): a thousand questions read nothing. */
static void test_cpus_once(void **state)
{
    unsigned first = hf_work_cpus();
    assert_int_equal(first, MAX(g_get_num_processors(), 1));
    uint64_t before = read_calls();
    if (!before)
        skip(); /* no /proc/self/io */
    for (int i = 0; i < 1000; i++)
        assert_int_equal(hf_work_cpus(), first);
    assert_in_range(read_calls() - before, 1, 10);
}

static void test_cgroup_v1(void **state)
{
    char *root = fake_root(), *why = NULL;
    put(root, "/proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/run/x\n0::/\n");
    put(root, "/sys/fs/cgroup/memory/run/x/memory.limit_in_bytes", "1073741824\n");
    put(root, "/sys/fs/cgroup/memory/run/x/memory.usage_in_bytes", "400000000\n");
    put(root, "/sys/fs/cgroup/memory/run/x/memory.stat", "cache 1\nrss 2\ntotal_cache 300000000\n");
    put(root, "/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put(root, "/sys/fs/cgroup/memory/memory.usage_in_bytes", "9000000000\n");
    assert_int_equal(hf_mem_available(root, &why), 1073741824ull - 100000000);
    assert_string_equal(why, "cgroup /memory/run/x/memory.limit_in_bytes");
    g_free(why);
    rm_root(root);
}

static void test_fake_for_tests(void **state)
{
    char *root = fake_root(), *why = NULL;
    g_setenv("HEAPFS_TEST_MEM_AVAILABLE", "12345", TRUE);
    assert_int_equal(hf_mem_available(root, &why), 12345);
    assert_int_equal(hf_mem_total(root), UINT64_MAX); /* no cap on a played machine */
    g_unsetenv("HEAPFS_TEST_MEM_AVAILABLE");
    assert_string_equal(why, "HEAPFS_TEST_MEM_AVAILABLE");
    g_free(why);
    rm_root(root);
}

/* Arrays within the budget are RAM; beyond it, files that have no name
 * in the directory, read as zeros, and keep what is written. */
static void test_budget(void **state)
{
    char *dir = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, 1 << 20}, dir);
    uint8_t *ram = hf_work_alloc0(700 << 10);
    uint64_t *file = hf_work_alloc0(8 << 20);
    assert_non_null(ram);
    assert_non_null(file);
    assert_int_equal(hf_work_in_files(), 8 << 20);
    for (size_t i = 0; i < (1 << 20); i += 4099)
        assert_int_equal(file[i], 0);
    for (size_t i = 0; i < (1 << 20); i++)
        file[i] = i * 7;
    GDir *d = g_dir_open(dir, 0, NULL);
    assert_null(g_dir_read_name(d));
    g_dir_close(d);
    hf_work_free(ram); /* back under budget: RAM again */
    uint8_t *again = hf_work_alloc(900 << 10);
    GString *said = g_string_new(NULL);
    hf_work_end(w, said);
    assert_non_null(strstr(said->str, "in RAM and files (peak 0.00 GiB in RAM, 0.01 GiB in files"));
    assert_non_null(strstr(said->str, "retained_mem=1048576"));
    for (size_t i = 0; i < (1 << 20); i++)
        assert_int_equal(file[i], i * 7); /* outlives its hf_work */
    hf_work_free(file);
    hf_work_free(again);
    g_string_free(said, TRUE);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

/* A reservation keeps its RAM from the arrays asked for before the one
 * of its size, which gets it; one that does not fit is refused. */
static void test_reserve(void **state)
{
    char *dir = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, 1 << 20}, dir);
    assert_true(hf_work_reserve(600 << 10, "forest"));
    assert_false(hf_work_in_ram(500 << 10));
    void *early = hf_work_alloc(500 << 10); /* would be RAM without it */
    assert_int_equal(hf_work_in_files(), 500 << 10);
    void *seq = hf_work_alloc_seq(600 << 10); /* in order: never the reserved one */
    assert_int_equal(hf_work_in_files(), 1100 << 10);
    void *forest = hf_work_alloc(600 << 10);
    assert_int_equal(hf_work_in_files(), 1100 << 10); /* RAM */
    assert_false(hf_work_reserve(600 << 10, "second"));
    void *small = hf_work_alloc(300 << 10); /* the rest of the budget, nothing held back */
    assert_int_equal(hf_work_in_files(), 1100 << 10);
    GString *said = g_string_new(NULL);
    hf_work_end(w, said);
    assert_non_null(strstr(said->str, "; 0.00 GiB of RAM reserved for the forest; "
                                      "no room to reserve 0.00 GiB of RAM for the second"));
    assert_non_null(strstr(said->str, "peak 0.00 GiB in RAM, 0.00 GiB in files"));
    void *arrays[] = {early, seq, forest, small};
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++) {
        assert_non_null(arrays[i]);
        hf_work_free(arrays[i]);
    }
    g_string_free(said, TRUE);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

/* A helper thread of the computation (hf_work_join). */
typedef struct {
    hf_work *w;
    GMutex m;
    GCond c;
    int step; /* 1: owner allocated, 2: helper allocated, 3: helper may leave */
    void *got[2];
} helper_ctx;

static void wait_step(helper_ctx *h, int step)
{
    g_mutex_lock(&h->m);
    while (h->step < step)
        g_cond_wait(&h->c, &h->m);
    g_mutex_unlock(&h->m);
}

static void set_step(helper_ctx *h, int step)
{
    g_mutex_lock(&h->m);
    h->step = step;
    g_cond_broadcast(&h->c);
    g_mutex_unlock(&h->m);
}

static gpointer helper(gpointer ud)
{
    helper_ctx *h = ud;
    assert_null(hf_work_current());
    hf_work_join(h->w);
    assert_ptr_equal(hf_work_current(), h->w);
    wait_step(h, 1);
    hf_work_phase("beside");
    h->got[0] = hf_work_alloc(600 << 10); /* RAM: 900 KiB of 1 MiB */
    set_step(h, 2);
    wait_step(h, 3);
    h->got[1] = hf_work_alloc(600 << 10); /* past the budget: a file in its directory */
    g_usleep(60000);
    hf_work_leave();
    assert_null(hf_work_current());
    return NULL;
}

/* A helper's arrays are placed by the owner's budget and directory and
 * counted in its peak; its phases are listed with the owner's, the
 * slices they share named by both. */
static void test_helper(void **state)
{
    char *dir = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    helper_ctx h = {hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, 1 << 20}, dir)};
    g_mutex_init(&h.m);
    g_cond_init(&h.c);
    GThread *t = g_thread_new("helper", helper, &h);
    hf_work_phase("alone");
    void *mine = hf_work_alloc(300 << 10);
    g_usleep(60000);
    hf_work_phase("main");
    set_step(&h, 1);
    wait_step(&h, 2);
    assert_false(hf_work_in_ram(300 << 10)); /* the helper's 600 KiB count */
    assert_true(hf_work_in_ram(100 << 10));
    g_usleep(60000);
    hf_work_phase("after");
    set_step(&h, 3);
    g_thread_join(t);
    hf_work_phase("last");
    g_usleep(60000);
    GString *said = g_string_new(NULL);
    hf_work_end(h.w, said);
    print_message("%s\n", said->str);
    char *where = g_strdup_printf("in RAM and files (peak 0.00 GiB in RAM, 0.00 GiB in files in %s,",
                                  dir);
    assert_non_null(strstr(said->str, where));
    g_free(where);
    assert_non_null(strstr(said->str, "phases (seconds, CPU seconds, major faults, GiB read): "
                                      "alone "));
    assert_non_null(strstr(said->str, ", main+beside "));
    assert_non_null(strstr(said->str, ", after+beside "));
    assert_non_null(strstr(said->str, ", last "));
    assert_null(strstr(said->str, ", main 0.0")); /* no slice of a thread meeting */
    assert_non_null(strstr(said->str, "; 1 phases on helper threads; phases ("));
    hf_work_free(mine);
    hf_work_free(h.got[0]);
    hf_work_free(h.got[1]);
    g_string_free(said, TRUE);
    g_mutex_clear(&h.m);
    g_cond_clear(&h.c);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

static gpointer race(gpointer ud)
{
    hf_work_join(ud);
    for (int i = 0; i < 100; i++) {
        char *p = hf_work_alloc(8 << 20);
        assert_non_null(p);
        p[0] = 1;
        hf_work_free(p);
    }
    hf_work_leave();
    return NULL;
}

/* Threads allocating at once never take the same RAM twice: with room
 * for one array in the budget, the peak in RAM is one array (8 MiB, 0.01
 * GiB; two would be 0.02). */
static void test_helpers_race(void **state)
{
    char *dir = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_LIMIT, 12 << 20}, dir);
    GThread *t[3];
    for (int i = 0; i < 3; i++)
        t[i] = g_thread_new("racer", race, w);
    for (int i = 0; i < 3; i++)
        g_thread_join(t[i]);
    GString *said = g_string_new(NULL);
    hf_work_end(w, said);
    assert_non_null(strstr(said->str, "(peak 0.01 GiB in RAM"));
    g_string_free(said, TRUE);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

static gpointer await_it(gpointer ud)
{
    hf_work_await_free(ud);
    return GINT_TO_POINTER(1);
}

/* A helper waiting for an array to be given back wakes when it is (by
 * whichever thread), and at once for what is no array of workmem's. */
static void test_await_free(void **state)
{
    char *dir = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_RAM, 0}, dir);
    void *p = hf_work_alloc(4096);
    bool freed = true;
    hf_work_watch_free(p, &freed);
    assert_false(freed);
    GThread *t = g_thread_new("waiter", await_it, &freed);
    g_usleep(20000);
    assert_false(freed);
    hf_work_free(p);
    assert_true(freed);
    assert_ptr_equal(g_thread_join(t), GINT_TO_POINTER(1));
    bool none = false;
    hf_work_watch_free(&none, &none); /* not an array of hf_work_alloc's */
    assert_true(none);
    hf_work_await_free(&none);
    hf_work_end(w, NULL);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

static GThread *ran_on;
static hf_work *ran_in;

static bool note_thread(void *arg)
{
    ran_on = g_thread_self();
    ran_in = hf_work_current();
    return arg != NULL;
}

/* A phase beside the caller's: on a helper in the caller's hf_work, or
 * on the caller's thread when it asks, or not at all when no longer
 * wanted; when that pays: a big computation in RAM, unless forced. */
static void test_beside(void **state)
{
    char *dir = g_dir_make_tmp("test_workmem.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_RAM, 0}, dir);
    hf_beside *b = hf_work_beside_start(true, note_thread, w);
    assert_true(hf_work_beside_end(b, true));
    assert_ptr_not_equal(ran_on, g_thread_self());
    assert_ptr_equal(ran_in, w);
    b = hf_work_beside_start(false, note_thread, NULL);
    ran_on = NULL;
    assert_false(hf_work_beside_end(b, true));
    assert_ptr_equal(ran_on, g_thread_self());
    b = hf_work_beside_start(false, note_thread, w);
    ran_on = NULL;
    assert_false(hf_work_beside_end(b, false));
    assert_null(ran_on);
    assert_false(hf_work_beside_pays(1000, 4096)); /* small */
    assert_int_equal(hf_work_beside_pays(1u << 24, 4096), hf_work_cpus() >= 2);
    g_setenv("HEAPFS_RETAINED_THREADS", "2", TRUE);
    assert_true(hf_work_beside_pays(1000, 4096));
    g_setenv("HEAPFS_RETAINED_THREADS", "1", TRUE);
    assert_false(hf_work_beside_pays(1u << 24, 4096));
    g_unsetenv("HEAPFS_RETAINED_THREADS");
    hf_work_end(w, NULL);
    w = hf_work_begin(&(hf_work_opt){HF_WORK_FILE, 0}, dir);
    assert_false(hf_work_beside_pays(1u << 24, 4096)); /* arrays in files */
    hf_work_end(w, NULL);
    assert_int_equal(g_rmdir(dir), 0);
    g_free(dir);
}

/* Without an hf_work: plain RAM; hf_work_free takes g_malloc's too. */
static void test_no_work(void **state)
{
    void *p = hf_work_alloc(100);
    assert_non_null(p);
    assert_int_equal(hf_work_in_files(), 0);
    hf_work_free(p);
    hf_work_free(g_malloc(10));
    hf_work_free(NULL);
}

/* A directory that cannot hold files: the allocation fails, and says so. */
static void test_no_place(void **state)
{
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_FILE, 0}, "/proc/no/such/dir");
    assert_null(hf_work_alloc(4096));
    GString *said = g_string_new(NULL);
    assert_int_equal(hf_work_failures(w), 1);
    hf_work_end(w, said);
    assert_non_null(strstr(said->str, "1 arrays could not be had"));
    g_string_free(said, TRUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meminfo_alone),
        cmocka_unit_test(test_cgroup_v2),
        cmocka_unit_test(test_cgroup_v1),
        cmocka_unit_test(test_cgroup_levels_once),
        cmocka_unit_test(test_cpus_once),
        cmocka_unit_test(test_fake_for_tests),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_helper),
        cmocka_unit_test(test_helpers_race),
        cmocka_unit_test(test_await_free),
        cmocka_unit_test(test_beside),
        cmocka_unit_test(test_no_work),
        cmocka_unit_test(test_no_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
