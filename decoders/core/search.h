/*
 * search.h - binary search over sorted ranges, arrays kept sorted by a
 * serial number, and the hash of sets kept as sorted hashes.  The one
 * place heapfs's decoders search a sorted array:
 * write no loop of your own.
 *
 * Searching a range
 * -----------------
 *
 * A sorted range is searched for its partition point: the first index at
 * which a caller's predicate turns false.  The predicate says, for element
 * i, whether it lies before what is looked for ("is element i < key"); it
 * must be true for a prefix of the range and false for the rest, as it is
 * for any range sorted by the key it compares.
 *
 *   - `hf_lower_bound(lo, hi, below, ud)`: the first i in [lo, hi) for
 *     which `below(ud, i)` is false, hi when there is none.  With
 *     `below` = "element i < key" that is the first element >= key: the
 *     first of equal keys when the key is there, the place it would go
 *     when it is not.  With `below` = "element i <= key" it is the first
 *     element > key (one past the last of equal keys).
 *
 *   - `hf_lower_bound_u64(a, n, key)`, `hf_lower_bound_u32(a, n, key)`:
 *     the same over a sorted array of integers: the first i with
 *     a[i] >= key, n when none.  `hf_upper_bound_u64` and
 *     `hf_upper_bound_u32`: the first i with a[i] > key, n when none.
 *
 * Example: the first record with an id in an array of structs sorted by id.
 *
 *     static bool rec_below(const void *ud, uint64_t i)
 *     {
 *         const struct find *f = ud;
 *         return f->recs[i].id < f->id;
 *     }
 *     ...
 *     struct find f = {recs, id};
 *     uint64_t i = hf_lower_bound(0, n, rec_below, &f);
 *     if (i < n && recs[i].id == id)
 *         ... recs[i] is the first record with that id ...
 *
 * These are static inline so that a hot caller (an object lookup by id)
 * gets the predicate inlined: define it static in the caller's file.
 *
 * Arrays sorted by serial
 * -----------------------
 *
 * Traces, threads, LOAD CLASS records, string records and allocation sites
 * are structs whose first member is a `uint32_t` serial (or id).  For a
 * GArray of such structs (assert `offsetof(T, serial) == 0` where you use
 * them):
 *
 *   - `hf_serial_sort(a)`: sort by serial, ascending; stable, so elements
 *     with one serial keep the order they were added in.
 *   - `hf_serial_dedup(a, dropped, ud)`: on a sorted array, keep the first
 *     element of each serial and remove the others; `dropped(elem, ud)`
 *     (may be NULL) is called for each element removed, in array order,
 *     before it goes.  Returns how many were removed.
 *   - `hf_serial_find(elems, n, size, serial)`: index of the first of `n`
 *     elements of `size` bytes with this serial, -1 when none.
 *     `hf_serial_find_array(a, serial)` does that for a GArray.
 *
 * Everything here is pure (sort and dedup change only the array they are
 * given) and thread-safe.
 */
#ifndef HF_SEARCH_H
#define HF_SEARCH_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether element i lies before what is searched for. */
typedef bool (*hf_below_fn)(const void *ud, uint64_t i);

static inline uint64_t hf_lower_bound(uint64_t lo, uint64_t hi, hf_below_fn below,
                                      const void *ud)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (below(ud, mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The typed helpers: hf_lower_bound with these predicates ("a[i] < key",
 * or "a[i] <= key" for an upper bound). */
typedef struct {
    const void *a;
    uint64_t key;
    bool upper;
} hf_search_key;

static inline bool hf_below_u64(const void *ud, uint64_t i)
{
    const hf_search_key *k = ud;
    uint64_t v = ((const uint64_t *)k->a)[i];
    return k->upper ? v <= k->key : v < k->key;
}

static inline bool hf_below_u32(const void *ud, uint64_t i)
{
    const hf_search_key *k = ud;
    uint64_t v = ((const uint32_t *)k->a)[i];
    return k->upper ? v <= k->key : v < k->key;
}

static inline size_t hf_lower_bound_u64(const uint64_t *a, size_t n, uint64_t key)
{
    return (size_t)hf_lower_bound(0, n, hf_below_u64, &(hf_search_key){a, key, false});
}

static inline size_t hf_upper_bound_u64(const uint64_t *a, size_t n, uint64_t key)
{
    return (size_t)hf_lower_bound(0, n, hf_below_u64, &(hf_search_key){a, key, true});
}

static inline size_t hf_lower_bound_u32(const uint32_t *a, size_t n, uint32_t key)
{
    return (size_t)hf_lower_bound(0, n, hf_below_u32, &(hf_search_key){a, key, false});
}

static inline size_t hf_upper_bound_u32(const uint32_t *a, size_t n, uint32_t key)
{
    return (size_t)hf_lower_bound(0, n, hf_below_u32, &(hf_search_key){a, key, true});
}

/* ---- arrays of structs that start with a uint32_t serial (search.c) ---- */

typedef void (*hf_serial_drop_fn)(const void *elem, void *ud);

void hf_serial_sort(GArray *a);
guint hf_serial_dedup(GArray *a, hf_serial_drop_fn dropped, void *ud);
int64_t hf_serial_find(const void *elems, size_t n, size_t size, uint32_t serial);

static inline int64_t hf_serial_find_array(const GArray *a, uint32_t serial)
{
    return hf_serial_find(a->data, a->len, g_array_get_element_size((GArray *)a), serial);
}

/* A 64-bit hash of n bytes (FNV-1a): for sets of texts kept as hashes. */
static inline uint64_t hf_hash_bytes(const void *p, size_t n)
{
    uint64_t x = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        x = (x ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
    return x;
}

#endif
