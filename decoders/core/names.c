/* names.c - see names.h. */
#include "decoders/core/names.h"

#include <string.h>

void hf_name_escape_append(GString *out, const char *name, size_t len)
{
    if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.')) {
        for (size_t i = 0; i < len; i++)
            g_string_append(out, "%2E");
        return;
    }
    if (len == 0) {
        g_string_append(out, "%00"); /* an empty name is not a file name */
        return;
    }
    for (size_t i = 0; i < len; i++) {
        char ch = name[i];
        if (ch == '%')
            g_string_append(out, "%25");
        else if (ch == '/')
            g_string_append(out, "%2F");
        else if (ch == '\0')
            g_string_append(out, "%00");
        else
            g_string_append_c(out, ch);
    }
}

char *hf_name_escape(const char *name, size_t len)
{
    GString *s = g_string_sized_new(len + 8);
    hf_name_escape_append(s, name, len);
    return g_string_free(s, FALSE);
}

char *hf_name_unescape(const char *escaped)
{
    GString *s = g_string_new(NULL);
    for (const char *p = escaped; *p; p++) {
        if (*p == '/')
            goto bad;
        if (*p != '%') {
            g_string_append_c(s, *p);
            continue;
        }
        if (strncmp(p, "%25", 3) == 0)
            g_string_append_c(s, '%');
        else if (strncmp(p, "%2F", 3) == 0)
            g_string_append_c(s, '/');
        else if (strncmp(p, "%2E", 3) == 0)
            g_string_append_c(s, '.');
        else if (strncmp(p, "%00", 3) == 0 && p == escaped && p[3] == '\0')
            ; /* the empty name */
        else
            goto bad;
        p += 2;
    }
    return g_string_free(s, FALSE);
bad:
    g_string_free(s, TRUE);
    return NULL;
}

bool hf_parse_decimal(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    if (n == 0 || n > 19 || (s[0] == '0' && n > 1))
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    *out = g_ascii_strtoull(s, NULL, 10);
    return true;
}
