/*
 * cache.c - the view cache: a bounded, thread-safe LRU map from 64-bit keys
 * to GBytes (see cache.h for the contract).
 *
 * Structure: a GHashTable finds an entry by key; every entry also sits in a
 * GQueue ordered by use, most recent at the head, through a GList link
 * embedded in the entry (so moving or unlinking an entry allocates nothing).
 * Eviction takes entries from the tail until the new value fits.
 *
 * Accounting: an entry costs its value's size plus HF_CACHE_ENTRY_OVERHEAD
 * bytes, and `bytes` (the sum of costs) never exceeds `max_bytes`.  A value
 * whose cost exceeds the bound is not stored, and any older value under the
 * same key is dropped, so a get never returns a stale view.  A max_bytes of
 * 0 stores nothing: every get misses.
 *
 * Counters: `evictions` counts only entries pushed out to make room;
 * replacing a key, or dropping it for an oversize value, is not an eviction.
 * `insertions` counts values actually stored (replacements included).
 *
 * Ownership: the cache owns its entries and holds one reference to each
 * value; hf_cache_get hands the caller a reference of its own, so an
 * eviction only drops the cache's reference and a reader keeps a valid value.
 *
 * Thread safety: one GMutex guards the table, the list and the counters;
 * every public function takes it, none calls out to user code while holding
 * it except g_bytes_unref (whose free function is a plain free for rendered
 * views).  hf_cache_new and hf_cache_free must not race with other calls on
 * the same cache.
 */
#include "cache/cache.h"

/*
 * What an entry costs beyond its value's bytes, on a 64-bit glibc system:
 * the entry itself (key, value pointer, size, embedded GList: 48 bytes, a 64
 * byte malloc chunk), its hash table slot (key, value and hash arrays at a
 * load of about one half: ~40), the GBytes header (48 with its malloc
 * chunk) and the malloc header of the value's data (16).  Rounded up: 160.
 * Counting it keeps a cache of many tiny views from growing without bound.
 */
#define HF_CACHE_ENTRY_OVERHEAD 160u

typedef struct {
    uint64_t key;   /* the table's key points here */
    GBytes *value;  /* one reference, owned by the cache */
    uint64_t cost;  /* value size + HF_CACHE_ENTRY_OVERHEAD */
    GList link;     /* in c->lru; link.data is this entry */
} entry;

struct hf_cache {
    GMutex lock;
    GHashTable *table; /* &entry->key -> entry; entries freed by us */
    GQueue lru;        /* most recently used at the head */
    hf_cache_stats st;
};

hf_cache *hf_cache_new(size_t max_bytes)
{
    hf_cache *c = g_new0(hf_cache, 1);
    g_mutex_init(&c->lock);
    c->table = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_queue_init(&c->lru);
    c->st.max_bytes = max_bytes;
    return c;
}

/* Unlinks e from the list and table and frees it.  Lock held. */
static void entry_drop(hf_cache *c, entry *e)
{
    g_queue_unlink(&c->lru, &e->link);
    g_hash_table_remove(c->table, &e->key);
    c->st.bytes -= e->cost;
    c->st.entries--;
    g_bytes_unref(e->value);
    g_free(e);
}

void hf_cache_free(hf_cache *c)
{
    if (!c)
        return;
    GList *l;
    while ((l = g_queue_peek_tail_link(&c->lru)) != NULL)
        entry_drop(c, l->data);
    g_hash_table_destroy(c->table);
    g_mutex_clear(&c->lock);
    g_free(c);
}

GBytes *hf_cache_get(hf_cache *c, uint64_t key)
{
    GBytes *v = NULL;
    g_mutex_lock(&c->lock);
    entry *e = g_hash_table_lookup(c->table, &key);
    if (e) {
        g_queue_unlink(&c->lru, &e->link);
        g_queue_push_head_link(&c->lru, &e->link);
        v = g_bytes_ref(e->value);
        c->st.hits++;
    } else {
        c->st.misses++;
    }
    g_mutex_unlock(&c->lock);
    return v;
}

/* Evicts from the cold end until `cost` more bytes fit.  Lock held. */
static void make_room(hf_cache *c, uint64_t cost)
{
    while (c->st.bytes + cost > c->st.max_bytes) {
        GList *l = g_queue_peek_tail_link(&c->lru);
        if (!l)
            break;
        entry_drop(c, l->data);
        c->st.evictions++;
    }
}

void hf_cache_put(hf_cache *c, uint64_t key, GBytes *value)
{
    g_return_if_fail(c != NULL && value != NULL);
    size_t size = g_bytes_get_size(value);
    /* max_bytes never changes after hf_cache_new, so it is safe to read
     * unlocked.  Compared this way round so a huge size cannot overflow. */
    int fits = c->st.max_bytes >= HF_CACHE_ENTRY_OVERHEAD &&
               size <= c->st.max_bytes - HF_CACHE_ENTRY_OVERHEAD;
    uint64_t cost = (uint64_t)size + HF_CACHE_ENTRY_OVERHEAD;

    /* Take our reference first: value may be the very GBytes being replaced. */
    g_bytes_ref(value);
    g_mutex_lock(&c->lock);
    entry *old = g_hash_table_lookup(c->table, &key);
    if (old)
        entry_drop(c, old);
    if (fits) {
        make_room(c, cost);
        entry *e = g_new0(entry, 1);
        e->key = key;
        e->value = value;
        e->cost = cost;
        e->link.data = e;
        g_hash_table_insert(c->table, &e->key, e);
        g_queue_push_head_link(&c->lru, &e->link);
        c->st.bytes += cost;
        c->st.entries++;
        c->st.insertions++;
    }
    g_mutex_unlock(&c->lock);
    if (!fits)
        g_bytes_unref(value);
}

void hf_cache_stats_get(hf_cache *c, hf_cache_stats *out)
{
    g_mutex_lock(&c->lock);
    *out = c->st;
    g_mutex_unlock(&c->lock);
}

void hf_cache_stats_render(hf_cache *c, GString *out)
{
    hf_cache_stats s;
    hf_cache_stats_get(c, &s);
    uint64_t lookups = s.hits + s.misses;
    /* Hundredths, rounded, in integers: no locale can turn the dot into a comma. */
    uint64_t ratio = lookups ? (s.hits * 100 + lookups / 2) / lookups : 0;

    g_string_append_printf(out,
        "hits: %" G_GUINT64_FORMAT "\n"
        "misses: %" G_GUINT64_FORMAT "\n"
        "evictions: %" G_GUINT64_FORMAT "\n"
        "insertions: %" G_GUINT64_FORMAT "\n"
        "entries: %" G_GUINT64_FORMAT "\n"
        "bytes: %" G_GUINT64_FORMAT "\n"
        "max bytes: %" G_GUINT64_FORMAT "\n"
        "hit ratio: %" G_GUINT64_FORMAT ".%02" G_GUINT64_FORMAT "\n",
        s.hits, s.misses, s.evictions, s.insertions, s.entries, s.bytes,
        s.max_bytes, ratio / 100, ratio % 100);
}
