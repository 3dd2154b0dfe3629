/*
 * keys.c - objects while building: {id, loc} pairs (growing, sorting by
 * id), and objects classified while scanning (build.h: hf_hkeys, hf_hrun):
 * the key table a scanning thread fills, and runs handed to a snapshot.
 * hf_heap_finish (build.c) resolves keys to classes; sizes.c turns a key's
 * sums into bytes.
 *
 * Pairs, a key table and a run are used by one thread at a time;
 * hf_heap_add_run is single-threaded (building).
 */
#include "decoders/heap/build.h"

#include <string.h>

/* Keys per table, and keys of arrays (each holds 2 KiB of counts): beyond
 * them objects are left unkeyed, for hf_heap_finish to read back.  With at
 * most 64 tables per snapshot every key number fits HF_HKEY_NONE's bits. */
#define KEYS_MAX 65536
#define ARRAY_KEYS_MAX 4096

void hf_hpairs_grow(hf_hpairs *p)
{
    p->cap = p->cap ? 2 * p->cap : 4096;
    p->v = g_renew(uint64_t, p->v, 2 * p->cap);
}

/* LSD radix sort of {id, loc} pairs on the id bits that vary: ids are
 * aligned addresses within a range, so two or three 11-bit passes usually
 * do.  Stable, so duplicate ids keep file order. */
void hf_hpairs_sort(uint64_t *a, size_t n)
{
    if (n < 2)
        return;
    bool sorted = true;
    uint64_t diff = 0;
    for (size_t i = 1; i < n; i++) {
        if (a[2 * i] < a[2 * i - 2])
            sorted = false;
        diff |= a[2 * i] ^ a[0];
    }
    if (sorted)
        return;
    int lo = __builtin_ctzll(diff), hi = 63 - __builtin_clzll(diff);
    enum { BITS = 11, NB = 1 << BITS };
    uint64_t *scratch = g_new(uint64_t, 2 * n);
    size_t *count = g_new(size_t, NB);
    uint64_t *src = a, *dst = scratch;
    for (int shift = lo; shift <= hi; shift += BITS) {
        memset(count, 0, NB * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(src[2 * i] >> shift) & (NB - 1)]++;
        size_t sum = 0;
        for (size_t k = 0; k < NB; k++) {
            size_t c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t k = count[(src[2 * i] >> shift) & (NB - 1)]++;
            dst[2 * k] = src[2 * i];
            dst[2 * k + 1] = src[2 * i + 1];
        }
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, 2 * n * sizeof *a);
    g_free(scratch);
    g_free(count);
}

hf_hkeys *hf_hkeys_new(void)
{
    hf_hkeys *k = g_new0(hf_hkeys, 1);
    k->keys = g_array_new(FALSE, TRUE, sizeof(hf_hkey));
    k->mask = 1023;
    k->slots = g_new0(hf_hslot, k->mask + 1);
    return k;
}

void hf_hkeys_free(hf_hkeys *k)
{
    if (!k)
        return;
    for (guint i = 0; i < k->keys->len; i++)
        g_free(g_array_index(k->keys, hf_hkey, i).by_len);
    g_array_free(k->keys, TRUE);
    g_free(k->slots);
    g_free(k);
}

static inline uint32_t slot_of(const hf_hkeys *k, uint64_t id, unsigned kind)
{
    uint64_t x = (id ^ kind) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(x >> 40) & k->mask;
}

static void grow(hf_hkeys *k)
{
    hf_hslot *old = k->slots;
    uint32_t n = k->mask + 1;
    k->mask = 2 * n - 1;
    k->slots = g_new0(hf_hslot, 2 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) {
        if (!old[i].key1)
            continue;
        uint32_t j = slot_of(k, old[i].id, old[i].kind);
        while (k->slots[j].key1)
            j = (j + 1) & k->mask;
        k->slots[j] = old[i];
    }
    g_free(old);
}

uint32_t hf_hkeys_note(hf_hkeys *k, unsigned kind, uint64_t class_id, unsigned elem,
                       uint64_t len)
{
    bool array = kind == HF_K_OBJARRAY || kind == HF_K_PRIMARRAY;
    uint64_t id = kind == HF_K_PRIMARRAY ? elem : class_id;
    uint32_t j = slot_of(k, id, kind);
    while (k->slots[j].key1 && (k->slots[j].id != id || k->slots[j].kind != kind))
        j = (j + 1) & k->mask;
    hf_hkey *key;
    if (G_LIKELY(k->slots[j].key1)) {
        key = &g_array_index(k->keys, hf_hkey, k->slots[j].key1 - 1);
    } else {
        if (k->keys->len >= KEYS_MAX || (array && k->n_arrays >= ARRAY_KEYS_MAX))
            return HF_HKEY_NONE;
        hf_hkey nk = {.class_id = class_id, .kind = (uint8_t)kind, .elem = (uint8_t)elem};
        if (array) {
            nk.by_len = g_new0(uint64_t, 256);
            k->n_arrays++;
        }
        g_array_append_val(k->keys, nk);
        k->slots[j] = (hf_hslot){.id = id, .key1 = k->keys->len, .kind = kind};
        if (2 * k->keys->len > k->mask)
            grow(k);
        key = &g_array_index(k->keys, hf_hkey, k->keys->len - 1);
    }
    key->count++;
    if (array) {
        key->sum_len += len;
        key->by_len[len & 255]++;
    }
    return (uint32_t)(key - (hf_hkey *)(void *)k->keys->data);
}

void hf_hrun_grow(hf_hrun *r)
{
    if (r->n_chunks == 0) {
        r->chunk = g_new(uint64_t *, 1);
        r->chunk[0] = g_new(uint64_t, 4096);
        r->n_chunks = 1;
        r->cap0 = 4096;
    } else if (r->cap0 < HF_RUN_MASK + 1) {
        r->cap0 *= 2;
        r->chunk[0] = g_renew(uint64_t, r->chunk[0], r->cap0);
    } else {
        r->chunk = g_renew(uint64_t *, r->chunk, r->n_chunks + 1);
        r->chunk[r->n_chunks++] = g_new(uint64_t, HF_RUN_MASK + 1);
    }
}

void hf_hrun_free(hf_hrun *r)
{
    if (!r)
        return;
    for (uint32_t c = 0; c < r->n_chunks; c++)
        g_free(r->chunk[c]);
    g_free(r->chunk);
    g_free(r);
}

void hf_heap_add_run(hf_hsnap *sn, hf_hrun *r)
{
    if (!sn->runs)
        sn->runs = g_ptr_array_new();
    g_ptr_array_add(sn->runs, r);
}
