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

/* Strict decimal, as heapfs writes numbers in names: digits only, no sign,
 * no leading zero, at most 19 digits, so each number has exactly one name.
 * False (and *out untouched) for anything else. */
bool hf_parse_decimal(const char *s, uint64_t *out);

#endif
