/*
 * cache.h - a bounded, thread-safe cache of rendered views.
 *
 * Keys are 64-bit numbers chosen by the caller (fs/ uses inode numbers);
 * values are GBytes.  The cache holds at most `max_bytes` of values (plus a
 * small per-entry overhead it counts too) and evicts the least recently used
 * entries first.  A value larger than the whole bound is not stored.
 *
 * Ownership: hf_cache_put takes its own reference to the value; the caller
 * keeps its own.  hf_cache_get returns a new reference (g_bytes_unref it),
 * so a value evicted while a reader copies from it stays valid.
 *
 * Thread safety: every function may be called from any thread.  Knows
 * nothing of FUSE or of dump formats.
 */
#ifndef HF_CACHE_H
#define HF_CACHE_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hf_cache hf_cache;

typedef struct {
    uint64_t hits, misses, evictions, insertions;
    uint64_t bytes;     /* bytes currently held, overhead included */
    uint64_t entries;   /* entries currently held */
    uint64_t max_bytes; /* the bound */
} hf_cache_stats;

hf_cache *hf_cache_new(size_t max_bytes);
void hf_cache_free(hf_cache *c);
/* New reference to the value for key, or NULL (counted as a miss). */
GBytes *hf_cache_get(hf_cache *c, uint64_t key);
/* Store or replace; evicts LRU entries to stay within the bound. */
void hf_cache_put(hf_cache *c, uint64_t key, GBytes *value);
void hf_cache_stats_get(hf_cache *c, hf_cache_stats *out);
/* Append "key: value" lines of the stats (what MOUNT/.stats shows). */
void hf_cache_stats_render(hf_cache *c, GString *out);

#endif
