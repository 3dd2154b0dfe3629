/* Unit tests for fs/preflight.c: what a mount needs, said in heapfs's words.
 * (Permissions and live mounts are tested as a user does, in
 * tests/mount/t_fs.sh: as root here, every file can be opened.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "fs/preflight.h"

/* msg equals want; frees msg */
static void said(char *msg, const char *want)
{
    assert_non_null(msg);
    assert_string_equal(msg, want);
    g_free(msg);
}

static void test_mountpoint(void **state)
{
    char *dir = g_dir_make_tmp("hf-preflight-XXXXXX", NULL);
    assert_null(hf_preflight_mountpoint(dir));
    char *file = g_build_filename(dir, "f", NULL), *none = g_build_filename(dir, "no/dir", NULL);
    assert_true(g_file_set_contents(file, "x", 1, NULL));
    char *want = g_strdup_printf("mount point %s: Not a directory", file);
    said(hf_preflight_mountpoint(file), want);
    g_free(want);
    want = g_strdup_printf("mount point %s: No such file or directory (make the directory first)",
                           none);
    said(hf_preflight_mountpoint(none), want);
    g_free(want);
    g_unlink(file);
    g_rmdir(dir);
    g_free(file);
    g_free(none);
    g_free(dir);
}

static void test_fuse_device(void **state)
{
    said(hf_preflight_fuse_device("/nonexistent/fuse"),
         "/nonexistent/fuse: No such file or directory (load the fuse kernel module: modprobe "
         "fuse; in a container, pass the device in: --device /nonexistent/fuse)");
    assert_null(hf_preflight_fuse_device("/dev/null")); /* opens read-write */
}

static void test_file(void **state)
{
    said(hf_preflight_file("names file", "/nonexistent/names.txt"),
         "names file /nonexistent/names.txt: No such file or directory");
    said(hf_preflight_file("names file", "/"), "names file /: Is a directory");
    assert_null(hf_preflight_file("names file", "/dev/null"));
}

static void test_restyle(void **state)
{
    /* libfuse's own lines, as it writes them */
    said(hf_preflight_restyle("fuse: unknown option(s): `-o foo,bar'\n"),
         "-o foo,bar: not an option of heapfs or libfuse (see heapfs --help)");
    said(hf_preflight_restyle("fuse: bad mount point `/x': No such file or directory\n"),
         "bad mount point '/x': No such file or directory");
    said(hf_preflight_restyle("fuse: reading device: Bad file descriptor"),
         "reading device: Bad file descriptor");
    said(hf_preflight_restyle("something else\n"), "something else");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mountpoint),
        cmocka_unit_test(test_fuse_device),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_restyle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
