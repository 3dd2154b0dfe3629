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

void hf_escape_text(GString *out, const char *s, size_t n)
{
    static const char named[] = {['\t'] = 't', ['\n'] = 'n', ['\r'] = 'r', ['\0'] = '0'};
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\') {
            g_string_append(out, "\\\\");
        } else if (c < 0x20 && c < sizeof named && named[c]) {
            g_string_append_c(out, '\\');
            g_string_append_c(out, named[c]);
        } else if (c < 0x20 || c == 0x7f) {
            g_string_append_printf(out, "\\x%02x", c);
        } else if (c >= 0x80) {
            gunichar u = g_utf8_get_char_validated(s + i, (gssize)(n - i));
            if (u == (gunichar)-1 || u == (gunichar)-2) {
                g_string_append_printf(out, "\\x%02x", c);
            } else {
                size_t len = (size_t)(g_utf8_next_char(s + i) - (s + i));
                if (u >= 0x80 && u < 0xa0)
                    g_string_append_printf(out, "\\u%04x", (unsigned)u);
                else
                    g_string_append_len(out, s + i, (gssize)len);
                i += len;
                continue;
            }
        } else {
            g_string_append_c(out, (char)c);
        }
        i++;
    }
}

void hf_escape_str(GString *out, const char *s)
{
    if (s)
        hf_escape_text(out, s, strlen(s));
}

void hf_escape_key(GString *out, const char *key, const char *text)
{
    if (!text)
        return;
    g_string_append_printf(out, "%s: ", key);
    hf_escape_text(out, text, strlen(text));
    g_string_append_c(out, '\n');
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
