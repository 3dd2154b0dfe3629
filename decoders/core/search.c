/* search.c - arrays sorted by a leading uint32_t serial; see search.h. */
#include "decoders/core/search.h"

#include <string.h>

static uint32_t serial_at(const void *elem)
{
    uint32_t s;
    memcpy(&s, elem, sizeof s);
    return s;
}

static gint cmp_serial(gconstpointer a, gconstpointer b)
{
    uint32_t x = serial_at(a), y = serial_at(b);
    return x < y ? -1 : x > y;
}

void hf_serial_sort(GArray *a)
{
    g_array_sort(a, cmp_serial); /* a stable merge sort */
}

guint hf_serial_dedup(GArray *a, hf_serial_drop_fn dropped, void *ud)
{
    size_t size = g_array_get_element_size(a);
    guint kept = 0, gone = 0;
    for (guint i = 0; i < a->len; i++) {
        const char *e = a->data + (size_t)i * size;
        if (kept && serial_at(a->data + (size_t)(kept - 1) * size) == serial_at(e)) {
            if (dropped)
                dropped(e, ud);
            gone++;
            continue;
        }
        if (kept != i)
            memmove(a->data + (size_t)kept * size, e, size);
        kept++;
    }
    if (gone)
        g_array_set_size(a, kept);
    return gone;
}

typedef struct {
    const char *elems;
    size_t size;
    uint32_t serial;
} find;

static bool serial_below(const void *ud, uint64_t i)
{
    const find *f = ud;
    return serial_at(f->elems + i * f->size) < f->serial;
}

int64_t hf_serial_find(const void *elems, size_t n, size_t size, uint32_t serial)
{
    find f = {elems, size, serial};
    uint64_t i = hf_lower_bound(0, n, serial_below, &f);
    return i < n && serial_at(f.elems + i * size) == serial ? (int64_t)i : -1;
}
