/*
 * memo.c - values made once per key, shared by reference, kept in an LRU
 * (see memo.h for the contract).
 *
 * Structure: a GHashTable finds an entry by key, a second one by value (for
 * oemp_memo_unref).  An entry that nobody holds sits in the GQueue `idle`,
 * most recently released at the head, through a GList link embedded in the
 * entry; an entry in use is in neither list, so eviction, which takes
 * entries from the tail of `idle`, cannot reach it.
 *
 * Making: the first caller for a key inserts an entry with no value yet,
 * holding a reference, and makes the value unlocked.  Later callers find the
 * entry, take a reference (so it stays out of `idle`) and wait on `made`
 * until the value is there.  One GCond serves every key: a finished make
 * broadcasts, and waiters for other keys go back to waiting.
 *
 * Freeing: evicted entries move, by their links, from `idle` to a queue of
 * the caller's under the lock; their values are freed after it is released.
 */
#include "decoders/oemp/memo.h"

typedef struct {
    guint64 key;    /* by_key's key points here */
    gpointer value; /* NULL while being made */
    gsize bytes;    /* size_of(value), 0 without a byte bound */
    guint refs;     /* callers holding the value or waiting for it */
    GList link;     /* in m->idle while refs == 0; link.data is this entry */
} entry;

struct oemp_memo {
    GMutex lock;
    GCond made;           /* broadcast when a value has been made */
    GHashTable *by_key;   /* &entry->key -> entry; entries freed by us */
    GHashTable *by_value; /* value -> entry, for the entries that have one */
    GQueue idle;          /* entries with refs == 0, most recently released first */
    guint max_entries;
    gsize max_bytes;      /* 0: no byte bound */
    gsize bytes;          /* sum of the entries' bytes */
    oemp_memo_size_fn size_of;
    GDestroyNotify free_value;
};

oemp_memo *oemp_memo_new_bytes(guint max_entries, gsize max_bytes, oemp_memo_size_fn size_of,
                               GDestroyNotify free_value)
{
    oemp_memo *m = g_new0(oemp_memo, 1);
    g_mutex_init(&m->lock);
    g_cond_init(&m->made);
    m->by_key = g_hash_table_new(g_int64_hash, g_int64_equal);
    m->by_value = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_queue_init(&m->idle);
    m->max_entries = max_entries;
    m->max_bytes = size_of ? max_bytes : 0;
    m->size_of = size_of;
    m->free_value = free_value;
    return m;
}

oemp_memo *oemp_memo_new(guint max_entries, GDestroyNotify free_value)
{
    return oemp_memo_new_bytes(max_entries, 0, NULL, free_value);
}

static void free_entry(oemp_memo *m, entry *e)
{
    if (m->free_value)
        m->free_value(e->value);
    g_free(e);
}

void oemp_memo_free(oemp_memo *m)
{
    if (!m)
        return;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, m->by_key);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        entry *e = v;
        g_warn_if_fail(e->refs == 0);
        free_entry(m, e);
    }
    g_hash_table_destroy(m->by_key);
    g_hash_table_destroy(m->by_value);
    g_cond_clear(&m->made);
    g_mutex_clear(&m->lock);
    g_free(m);
}

static gboolean over_bounds(const oemp_memo *m)
{
    return g_hash_table_size(m->by_key) > m->max_entries ||
           (m->max_bytes && m->bytes > m->max_bytes);
}

/* Moves the least recently released entries, but never `keep`, from the
 * memo to `dead` while the memo is over its bounds.  Lock held. */
static void evict(oemp_memo *m, const entry *keep, GQueue *dead)
{
    while (over_bounds(m) && m->idle.tail && m->idle.tail->data != keep) {
        entry *e = m->idle.tail->data;
        g_queue_unlink(&m->idle, &e->link);
        g_hash_table_remove(m->by_key, &e->key);
        g_hash_table_remove(m->by_value, e->value);
        m->bytes -= e->bytes;
        g_queue_push_tail_link(dead, &e->link);
    }
}

/* Frees what evict moved to `dead`, in eviction order.  Lock not held. */
static void free_dead(oemp_memo *m, GQueue *dead)
{
    while (dead->head) {
        entry *e = dead->head->data;
        g_queue_unlink(dead, &e->link);
        free_entry(m, e);
    }
}

gpointer oemp_memo_get(oemp_memo *m, guint64 key, oemp_memo_make_fn make, gpointer ud)
{
    g_mutex_lock(&m->lock);
    entry *e = g_hash_table_lookup(m->by_key, &key);
    if (e) {
        if (e->refs++ == 0)
            g_queue_unlink(&m->idle, &e->link);
        while (!e->value) /* another caller is making it */
            g_cond_wait(&m->made, &m->lock);
        gpointer v = e->value;
        g_mutex_unlock(&m->lock);
        return v;
    }
    e = g_new0(entry, 1);
    e->key = key;
    e->refs = 1;
    e->link.data = e;
    g_hash_table_insert(m->by_key, &e->key, e);
    g_mutex_unlock(&m->lock);

    gpointer v = make(key, ud);
    g_assert(v != NULL);
    gsize bytes = m->size_of ? m->size_of(v) : 0;

    g_mutex_lock(&m->lock);
    e->value = v;
    e->bytes = bytes;
    m->bytes += bytes;
    g_hash_table_insert(m->by_value, v, e);
    g_cond_broadcast(&m->made);
    GQueue dead = G_QUEUE_INIT;
    evict(m, e, &dead);
    g_mutex_unlock(&m->lock);
    free_dead(m, &dead);
    return v;
}

void oemp_memo_unref(oemp_memo *m, gpointer value)
{
    if (!value)
        return;
    g_mutex_lock(&m->lock);
    entry *e = g_hash_table_lookup(m->by_value, value);
    g_assert(e != NULL && e->refs > 0);
    GQueue dead = G_QUEUE_INIT;
    if (--e->refs == 0) {
        g_queue_push_head_link(&m->idle, &e->link);
        evict(m, e, &dead);
    }
    g_mutex_unlock(&m->lock);
    free_dead(m, &dead);
}
