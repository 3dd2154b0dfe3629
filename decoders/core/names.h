/*
 * names.h - reversible escaping of names that become file names.
 *
 * A file name may hold any byte but '/' and NUL; class names can hold '/'
 * (hidden classes, lambdas).  heapfs escapes '%' as "%25" and '/' as "%2F",
 * nothing else, so most names read as they are and unescaping is exact.
 * "." and ".." (never real class names) become "%2E" and "%2E%2E".
 * Names that repeat (one class name, several loaders) get a stable suffix
 * "@0xID" added by the decoder, after escaping.
 *
 * All functions are pure and thread-safe; results are newly allocated
 * (g_free) unless stated.
 */
#ifndef HF_NAMES_H
#define HF_NAMES_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

char *hf_name_escape(const char *name, size_t len);
/* NULL when `escaped` is not a valid escaped name. */
char *hf_name_unescape(const char *escaped);
/* Append the escaped form of name[0..len) to out. */
void hf_name_escape_append(GString *out, const char *name, size_t len);

/* Text for a column of a table or a line of a view (docs/views.md): TAB,
 * newline, CR, NUL and backslash as \t \n \r \0 \\, other bytes below
 * 0x20 and DEL as \xHH, C1 control characters (U+0080..U+009F) as \u00HH,
 * bytes that are not UTF-8 as \xHH; everything else as it is.  So a text
 * stays one field of one line and sends no control sequence to a terminal.
 * Appends s[0..n) escaped to out. */
void hf_escape_text(GString *out, const char *s, size_t n);
/* The same for a NUL-terminated string (NULL: nothing). */
void hf_escape_str(GString *out, const char *s);
/* An info line "KEY: TEXT\n", TEXT escaped as above; nothing when text is NULL. */
void hf_escape_key(GString *out, const char *key, const char *text);

/* Strict decimal, as heapfs writes numbers in names: digits only, no sign,
 * no leading zero, at most 19 digits, so each number has exactly one name.
 * False (and *out untouched) for anything else. */
bool hf_parse_decimal(const char *s, uint64_t *out);

#endif
