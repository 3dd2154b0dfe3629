/*
 * test_keepdir.c - the cache directory's cleanup and one dump's kept files
 * (decoders/core/keepdir.h), on temporary directories of small files.
 *
 * Names: what counts as a kept file or its temporary.  The bound: files
 * over it go least recently used first (the later of atime and mtime),
 * never the file just written, a file a reader holds (its lock), or a
 * file of another name or that is no index file.  Files whose dump is
 * gone or changed go whatever the bound.  Dead writers' temporaries go,
 * live ones (locked) stay.  A reader's open sets the atime.  Finding a
 * dump's files: by name, by recorded path, by inode, also once the dump
 * is deleted.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

#include "decoders/core/keepdir.h"
#include "decoders/core/keepfmt.h"

static char *cache; /* $XDG_CACHE_HOME/heapfs, made by main */

static void rm_rf(const char *dir)
{
    GDir *g = g_dir_open(dir, 0, NULL);
    const char *n;
    while (g && (n = g_dir_read_name(g))) {
        char *p = g_build_filename(dir, n, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR))
            rm_rf(p);
        else
            unlink(p);
        g_free(p);
    }
    if (g)
        g_dir_close(g);
    rmdir(dir);
}

/* An empty cache directory for each test. */
static int fresh(void **state)
{
    rm_rf(cache);
    assert_int_equal(g_mkdir_with_parents(cache, 0700), 0);
    hf_keepdir_set_max(0, HF_KEEPDIR_DEFAULT_PERCENT);
    return 0;
}

static char *in(const char *dir, const char *name)
{
    return g_build_filename(dir, name, NULL);
}

/* A fake kept file: the magic, then zeros up to `bytes`; used (atime) and
 * changed (mtime) `age_used` and `age_changed` seconds ago. */
static void fake(const char *dir, const char *name, size_t bytes, int age_used, int age_changed)
{
    char *p = in(dir, name);
    char *data = g_malloc0(bytes);
    memcpy(data, "HFINDEX", 8);
    assert_true(g_file_set_contents(p, data, (gssize)bytes, NULL));
    struct timespec ts[2] = {{time(NULL) - age_used, 0}, {time(NULL) - age_changed, 0}};
    assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
    g_free(data);
    g_free(p);
}

/* The atime of dir/name, in ns. */
static int64_t atime_ns(const char *dir, const char *name)
{
    char *p = in(dir, name);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    g_free(p);
    return (int64_t)st.st_atim.tv_sec * 1000000000 + st.st_atim.tv_nsec;
}

static bool exists(const char *dir, const char *name)
{
    char *p = in(dir, name);
    bool e = g_file_test(p, G_FILE_TEST_EXISTS);
    g_free(p);
    return e;
}

static void test_names(void **state)
{
    assert_true(hf_keepdir_is_kept("a.hprof.heapfs-index"));
    assert_true(hf_keepdir_is_kept("a.hprof-0123456789abcdef.heapfs-index.retained-strong.1"));
    assert_true(hf_keepdir_is_kept("x.heapfs-index.heapfs-index.retained-weak.12"));
    assert_false(hf_keepdir_is_kept(".heapfs-index"));
    assert_false(hf_keepdir_is_kept("a.heapfs-index.AbC123")); /* a temporary */
    assert_false(hf_keepdir_is_kept("a.heapfs-index.retained-strong.1.work"));
    assert_false(hf_keepdir_is_kept("a.heapfs-index.retained-.1"));
    assert_false(hf_keepdir_is_kept("a.heapfs-index.retained-strong."));
    assert_false(hf_keepdir_is_kept("a.hprof"));
    assert_true(hf_keepdir_is_kept_of("a.hprof.heapfs-index.retained-soft.2", "a.hprof"));
    assert_false(hf_keepdir_is_kept_of("b.a.hprof.heapfs-index", "a.hprof"));
    assert_false(hf_keepdir_is_kept_of("a.hprof.1.heapfs-index", "a.hprof"));
    const char *n = "/d/a.hprof.heapfs-index.retained-strong.1";
    assert_string_equal(hf_keepdir_suffix(n), ".heapfs-index.retained-strong.1");
    char *stem = hf_keepdir_stem("/d/a.hprof");
    assert_true(g_str_has_prefix(stem, "a.hprof-"));
    assert_int_equal(strlen(stem), strlen("a.hprof-") + 16);
    g_free(stem);
}

/* Over the bound: least recently used first, by the later of atime and
 * mtime; the file just written and a file held by a reader stay, and so
 * does every file that is not a kept index file. */
static void test_bound_lru(void **state)
{
    fake(cache, "old.heapfs-index", 1000, 5000, 5000);
    fake(cache, "used.heapfs-index", 1000, 10, 6000);   /* old, but read lately */
    fake(cache, "mid.heapfs-index.retained-strong.1", 1000, 3000, 3000);
    fake(cache, "held.heapfs-index", 1000, 9000, 9000); /* oldest, but mapped */
    fake(cache, "new.heapfs-index", 1000, 0, 0);        /* just written */
    fake(cache, "work.heapfs-index.retained-strong.1.tmp", 5000, 9000, 9000);
    fake(cache, "other-file", 5000, 9000, 9000);
    char *notix = in(cache, "notix.heapfs-index");
    assert_true(g_file_set_contents(notix, "not an index file, and old", -1, NULL));
    struct timespec ts[2] = {{1000, 0}, {1000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, notix, ts, 0), 0);
    char *held = in(cache, "held.heapfs-index"), *new = in(cache, "new.heapfs-index");
    int fd = open(held, O_RDONLY);
    assert_int_equal(flock(fd, LOCK_SH), 0);

    hf_keepdir_set_max(3000, 0);
    hf_trim t;
    int64_t held_used = atime_ns(cache, "held.heapfs-index");
    int64_t used_used = atime_ns(cache, "used.heapfs-index");
    hf_keepdir_trim(cache, new, &t);
    /* reading the headers is no use: under relatime it would make every
     * file just used, and the next trim's order that of the reads */
    assert_int_equal(atime_ns(cache, "held.heapfs-index"), held_used);
    assert_int_equal(atime_ns(cache, "used.heapfs-index"), used_used);
    /* 5000 bytes of kept files: held cannot go, old and mid go (3000 left) */
    assert_true(exists(cache, "held.heapfs-index"));
    assert_false(exists(cache, "old.heapfs-index"));
    assert_false(exists(cache, "mid.heapfs-index.retained-strong.1"));
    assert_true(exists(cache, "used.heapfs-index"));
    assert_true(exists(cache, "new.heapfs-index"));
    assert_true(exists(cache, "work.heapfs-index.retained-strong.1.tmp"));
    assert_true(exists(cache, "other-file"));
    assert_true(exists(cache, "notix.heapfs-index"));
    assert_int_equal(t.evicted, 2);
    assert_int_equal(t.busy, 1);
    assert_int_equal(t.freed, 2000);
    assert_int_equal(t.left, 3000);
    assert_int_equal(t.gone, 0);

    close(fd); /* the reader is done: now it goes first */
    hf_keepdir_set_max(2500, 0);
    hf_keepdir_trim(cache, new, &t);
    assert_false(exists(cache, "held.heapfs-index"));
    assert_true(exists(cache, "used.heapfs-index"));
    assert_int_equal(t.left, 2000);

    /* a bound below the file just written: it alone stays */
    hf_keepdir_set_max(10, 0);
    hf_keepdir_trim(cache, new, &t);
    assert_false(exists(cache, "used.heapfs-index"));
    assert_true(exists(cache, "new.heapfs-index"));
    assert_int_equal(t.left, 1000);
    g_free(notix);
    g_free(held);
    g_free(new);
}

/* The default bound is a share of the file system: files far below it stay. */
static void test_default_bound(void **state)
{
    unsigned percent;
    uint64_t max = hf_keepdir_max(cache, &percent);
    assert_true(max > 0 && max < UINT64_MAX);
    assert_int_equal(percent, HF_KEEPDIR_DEFAULT_PERCENT);
    fake(cache, "a.heapfs-index", 4096, 9000, 9000);
    hf_trim t;
    hf_keepdir_trim(cache, NULL, &t);
    assert_true(exists(cache, "a.heapfs-index"));
    hf_keepdir_set_max(0, 100);
    assert_true(hf_keepdir_max(cache, &percent) >= max);
    assert_int_equal(percent, 100);
    hf_keepdir_set_max(12345, 0);
    assert_int_equal(hf_keepdir_max(cache, &percent), 12345);
    assert_int_equal(percent, 0);
}

/* Dead writers' temporaries (old, unlocked) of kept names go; a live
 * writer's (locked) and other names' stay. */
static void test_stale_temps(void **state)
{
    fake(cache, "a.heapfs-index.AbC123", 100, 3600, 3600);
    fake(cache, "a.heapfs-index.retained-strong.1.XyZ789", 100, 3600, 3600);
    fake(cache, "b.heapfs-index.LiVe12", 100, 3600, 3600);
    fake(cache, "c.heapfs-index.NeW123", 100, 0, 0);
    fake(cache, "work.bin.AbC123", 100, 3600, 3600);
    char *live = in(cache, "b.heapfs-index.LiVe12");
    int fd = open(live, O_RDWR);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    hf_keepdir_trim(cache, NULL, NULL);
    assert_false(exists(cache, "a.heapfs-index.AbC123"));
    assert_false(exists(cache, "a.heapfs-index.retained-strong.1.XyZ789"));
    assert_true(exists(cache, "b.heapfs-index.LiVe12"));
    assert_true(exists(cache, "c.heapfs-index.NeW123"));
    assert_true(exists(cache, "work.bin.AbC123"));
    close(fd);
    g_free(live);
}

/* A kept file in the cache directory for the dump at dir/name (created
 * with `content`): written by hf_keepw_write from the default places, the
 * one beside the dump being taken by a file that is no index file. */
static char *kept_in_cache(const char *dir, const char *name, const char *content,
                           const char *suffix)
{
    char *dump = in(dir, name);
    if (!g_file_test(dump, G_FILE_TEST_EXISTS))
        assert_true(g_file_set_contents(dump, content, -1, NULL));
    GPtrArray *paths = hf_keep_candidates(dump, NULL, suffix);
    assert_true(g_file_set_contents(g_ptr_array_index(paths, 0), "notes", -1, NULL));
    hf_keepkey key;
    assert_true(hf_keep_key(&key, dump, (const uint8_t *)content, strlen(content), "test", 0));
    hf_keepw *w = hf_keepw_new();
    hf_keepw_add(w, 1, "section", 7);
    char *why = NULL;
    char *to = hf_keepw_write(w, &key, paths, 0600, &why);
    hf_keepw_free(w);
    g_free(why); /* why the place beside the dump was passed over */
    assert_non_null(to);
    assert_true(g_str_has_prefix(to, cache));
    char *dumped;
    assert_true(hf_keepfmt_peek(to, &key, &dumped));
    assert_string_equal(dumped, dump); /* the header records the dump */
    g_free(dumped);
    unlink(g_ptr_array_index(paths, 0));
    g_ptr_array_free(paths, TRUE);
    g_free(dump);
    return to;
}

/* Changes path's ctime (its mode toggled), until it differs from the one
 * it had: the clock stamping it may tick only every few ms (kernels
 * without fine-grained timestamps), so one chmod right after the key was
 * taken can leave the same ctime. */
static void new_ctime(const char *path)
{
    struct stat was, now;
    assert_int_equal(stat(path, &was), 0);
    mode_t mode = was.st_mode & 07777;
    do {
        g_usleep(1000);
        mode ^= 0040;
        assert_int_equal(chmod(path, mode), 0);
        assert_int_equal(stat(path, &now), 0);
    } while (now.st_ctim.tv_sec == was.st_ctim.tv_sec && now.st_ctim.tv_nsec == was.st_ctim.tv_nsec);
}

/* Files whose dump is deleted or changed go, whatever the bound; those of
 * a dump that is still there stay. */
static void test_gone(void **state)
{
    char *dir = g_dir_make_tmp("heapfs-keepdir.XXXXXX", NULL);
    char *a = kept_in_cache(dir, "a.hprof", "dump a", "");
    char *ar = kept_in_cache(dir, "a.hprof", "dump a", ".retained-strong.1");
    char *b = kept_in_cache(dir, "b.hprof", "dump b", "");
    char *c = kept_in_cache(dir, "c.hprof", "dump c", "");
    fake(cache, "unknown.heapfs-index", 100, 0, 0); /* records no dump */
    char *da = in(dir, "a.hprof"), *dc = in(dir, "c.hprof");
    unlink(da);
    new_ctime(dc); /* c's files are stale */
    hf_trim t;
    hf_keepdir_trim(cache, NULL, &t);
    assert_false(g_file_test(a, G_FILE_TEST_EXISTS));
    assert_false(g_file_test(ar, G_FILE_TEST_EXISTS));
    assert_false(g_file_test(c, G_FILE_TEST_EXISTS));
    assert_true(g_file_test(b, G_FILE_TEST_EXISTS));
    assert_true(exists(cache, "unknown.heapfs-index"));
    assert_int_equal(t.gone, 3);
    assert_int_equal(t.evicted, 0);
    rm_rf(dir);
    g_free(dir);
    g_free(da);
    g_free(dc);
    g_free(a);
    g_free(ar);
    g_free(b);
    g_free(c);
}

/* A reader holds its file: it cannot be removed until freed; opening it
 * sets its atime (the LRU's "used"), under relatime or noatime alike. */
static void test_reader_holds(void **state)
{
    char *dir = g_dir_make_tmp("heapfs-keepdir.XXXXXX", NULL);
    char *ix = kept_in_cache(dir, "r.hprof", "dump r", "");
    char *dump = in(dir, "r.hprof");
    struct timespec ts[2] = {{1000, 0}, {UTIME_OMIT, UTIME_OMIT}};
    assert_int_equal(utimensat(AT_FDCWD, ix, ts, 0), 0);
    hf_keepkey key;
    assert_true(hf_keep_key(&key, dump, (const uint8_t *)"dump r", 6, "test", 0));
    GPtrArray *paths = g_ptr_array_new();
    g_ptr_array_add(paths, ix);
    hf_keepr *r = hf_keepr_open(&key, paths, NULL);
    assert_non_null(r);
    struct stat st;
    assert_int_equal(stat(ix, &st), 0);
    assert_true(st.st_atime > time(NULL) - 60);
    assert_int_equal(hf_keepdir_remove(ix), EBUSY);
    hf_keepr_free(r);
    assert_int_equal(hf_keepdir_remove(ix), 0);
    assert_false(g_file_test(ix, G_FILE_TEST_EXISTS));
    assert_int_equal(hf_keepdir_remove(ix), ENOENT);
    g_ptr_array_free(paths, TRUE);
    rm_rf(dir);
    g_free(dir);
    g_free(dump);
    g_free(ix);
}

static bool listed(GArray *kept, const char *path)
{
    for (guint i = 0; i < kept->len; i++)
        if (strcmp(g_array_index(kept, hf_kept, i).path, path) == 0)
            return true;
    return false;
}

/* A dump's files: beside it, in the cache by name, by recorded path and
 * by inode (a hard link's); another dump's are not; once the dump is
 * deleted, those found by name and by recorded path still are. */
static void test_find(void **state)
{
    char *dir = g_dir_make_tmp("heapfs-keepdir.XXXXXX", NULL);
    char *d = in(dir, "d.hprof"), *hard = in(dir, "link.hprof");
    /* linked first: a new link changes d's ctime, which makes older files stale */
    assert_true(g_file_set_contents(d, "dump d", -1, NULL));
    assert_int_equal(link(d, hard), 0);
    char *byname = kept_in_cache(dir, "d.hprof", "dump d", "");
    char *results = kept_in_cache(dir, "d.hprof", "dump d", ".retained-weak.1");
    char *bylink = kept_in_cache(dir, "link.hprof", "dump d", ""); /* keyed to d's inode */
    char *other = kept_in_cache(dir, "e.hprof", "dump e", "");
    char *beside = in(dir, "d.hprof.heapfs-index");
    rename(other, beside); /* not d's: keyed to e, named after d: found by name */
    char *notix = in(dir, "d.hprof.heapfs-index.retained-strong.1");
    assert_true(g_file_set_contents(notix, "notes", -1, NULL));
    char *e2 = kept_in_cache(dir, "e.hprof", "dump e", "");

    GArray *k = hf_keepdir_find(d);
    assert_int_equal(k->len, 4);
    assert_true(listed(k, byname) && listed(k, results) && listed(k, bylink) && listed(k, beside));
    assert_false(listed(k, notix) || listed(k, e2));
    for (guint i = 0; i < k->len; i++)
        assert_true(g_array_index(k, hf_kept, i).bytes > 0);
    hf_keepdir_kept_free(k);

    unlink(d);
    unlink(hard);
    k = hf_keepdir_find(d);
    assert_int_equal(k->len, 3); /* by inode no more */
    assert_false(listed(k, bylink));
    hf_keepdir_kept_free(k);
    char *gone = in(dir, "never.hprof");
    k = hf_keepdir_find(gone);
    assert_int_equal(k->len, 0);
    hf_keepdir_kept_free(k);
    rm_rf(dir);
    g_free(dir);
    g_free(gone);
    g_free(d);
    g_free(hard);
    g_free(byname);
    g_free(results);
    g_free(bylink);
    g_free(other);
    g_free(beside);
    g_free(notix);
    g_free(e2);
}

int main(void)
{
    char *home = g_dir_make_tmp("heapfs-keepdir-cache.XXXXXX", NULL);
    g_setenv("XDG_CACHE_HOME", home, TRUE); /* before GLib reads it */
    cache = hf_keepdir_path();
    assert_true(g_str_has_prefix(cache, home));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test_setup(test_bound_lru, fresh),
        cmocka_unit_test_setup(test_default_bound, fresh),
        cmocka_unit_test_setup(test_stale_temps, fresh),
        cmocka_unit_test_setup(test_gone, fresh),
        cmocka_unit_test_setup(test_reader_holds, fresh),
        cmocka_unit_test_setup(test_find, fresh),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(home);
    g_free(home);
    g_free(cache);
    return rc;
}
