/* Unit tests for decoders/core/names.c: reversible escaping of file names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "decoders/core/names.h"

static void round_trip(const char *name, const char *want)
{
    char *e = hf_name_escape(name, strlen(name));
    assert_string_equal(e, want);
    assert_null(strchr(e, '/'));
    char *back = hf_name_unescape(e);
    assert_non_null(back);
    assert_string_equal(back, name);
    g_free(e);
    g_free(back);
}

static void test_plain_names_unchanged(void **state)
{
    round_trip("java.lang.String", "java.lang.String");
    round_trip("Foo$Bar", "Foo$Bar");
    round_trip("int[][]", "int[][]");
}

static void test_slash_and_percent(void **state)
{
    round_trip("Foo$$Lambda$14/0x0000000800c03000", "Foo$$Lambda$14%2F0x0000000800c03000");
    round_trip("50%/x", "50%25%2Fx");
}

static void test_dots(void **state)
{
    round_trip(".", "%2E");
    round_trip("..", "%2E%2E");
    round_trip("...", "...");
}

static void test_bad_escapes_rejected(void **state)
{
    assert_null(hf_name_unescape("a%zz"));
    assert_null(hf_name_unescape("a/b"));
    assert_null(hf_name_unescape("%2"));
}

static void escaped(const char *s, size_t n, const char *want)
{
    GString *out = g_string_new(NULL);
    hf_escape_text(out, s, n);
    assert_string_equal(out->str, want);
    g_string_free(out, TRUE);
}

/* Text for views (docs/views.md): one field of one line, no control
 * sequence reaches a terminal, and the escaping is unambiguous. */
static void test_escape_text(void **state)
{
    escaped("java.lang.String", 16, "java.lang.String");
    escaped("a\tb\nc\rd\\e", 9, "a\\tb\\nc\\rd\\\\e");
    escaped("x\0y", 3, "x\\0y");
    escaped("\x1b[31mred\x7f", 9, "\\x1b[31mred\\x7f");
    escaped("caf\xc3\xa9 \xe2\x82\xac", 9, "caf\xc3\xa9 \xe2\x82\xac"); /* UTF-8 kept */
    escaped("\xc2\x9b" "1m", 4, "\\u009b1m");                  /* C1 CSI */
    escaped("\x9b\xff" "a\xc3", 4, "\\x9b\\xffa\\xc3");        /* not UTF-8 */
    GString *out = g_string_new(NULL);
    hf_escape_str(out, NULL);
    hf_escape_str(out, "a\n");
    assert_string_equal(out->str, "a\\n");
    g_string_free(out, TRUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_names_unchanged),
        cmocka_unit_test(test_slash_and_percent),
        cmocka_unit_test(test_dots),
        cmocka_unit_test(test_bad_escapes_rejected),
        cmocka_unit_test(test_escape_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
