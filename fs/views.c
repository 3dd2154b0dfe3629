/*
 * views.c - see views.h.
 *
 * A cached entry is a GBytes that starts with a one-word tag:
 *   WHOLE:  tag, then the view's bytes.
 *   LAYOUT: tag, total size, then (byte offset, first item) checkpoints, one
 *           per chunk (a quarter chunk for measured views), in order.
 */
#include "fs/views.h"

#include "decoders/core/model.h"
#include "decoders/core/search.h"

#include <string.h>

enum { TAG_WHOLE = 1, TAG_LAYOUT = 2 };

typedef struct {
    uint64_t offset; /* of the chunk's first byte in the view */
    uint64_t item;   /* item the chunk starts with */
} checkpoint;

struct hf_views {
    hf_cache *cache;
    size_t chunk;
    size_t whole_max;
};

hf_views *hf_views_new(hf_cache *cache, size_t chunk, size_t whole_max)
{
    hf_views *v = g_new0(hf_views, 1);
    v->cache = cache;
    v->chunk = chunk ? chunk : 65536;
    v->whole_max = whole_max;
    return v;
}

void hf_views_free(hf_views *v)
{
    g_free(v);
}

/*
 * Render the whole view once.  Returns a WHOLE or LAYOUT entry.  While the
 * view is small its bytes are kept; once it outgrows whole_max they are
 * dropped and only checkpoints are kept from then on.
 */
static GBytes *layout_entry(uint64_t total, GArray *cps)
{
    uint64_t tag = TAG_LAYOUT;
    GString *layout = g_string_new(NULL);
    g_string_append_len(layout, (const char *)&tag, sizeof tag);
    g_string_append_len(layout, (const char *)&total, sizeof total);
    g_string_append_len(layout, (const char *)cps->data, cps->len * sizeof(checkpoint));
    g_array_free(cps, TRUE);
    return g_string_free_to_bytes(layout);
}

/*
 * The layout of a view that can be measured: checkpoints every quarter
 * chunk, so a read starts at most that far before its offset; halved in
 * number until the layout fits what the cache keeps (else it would be
 * measured again at every read).
 */
static GBytes *measure_entry(hf_views *v, hf_views_measure_fn measure, void *arg)
{
    GArray *cps = g_array_new(FALSE, FALSE, sizeof(checkpoint));
    uint64_t total = 0, item = 0;
    size_t spacing = MAX(v->chunk / 4, 1);
    while (item != HF_DONE) {
        checkpoint cp = {total, item};
        g_array_append_val(cps, cp);
        uint64_t next = measure(arg, item, &total, spacing);
        if (next != HF_DONE && next <= item)
            next = HF_DONE; /* as for renderers */
        item = next;
    }
    size_t room = MAX(v->whole_max, 4096);
    while (cps->len > 1 && 16 + cps->len * sizeof(checkpoint) > room) {
        checkpoint *c = (checkpoint *)cps->data;
        for (guint i = 0; 2 * i < cps->len; i++)
            c[i] = c[2 * i];
        g_array_set_size(cps, (cps->len + 1) / 2);
    }
    return layout_entry(total, cps);
}

static GBytes *render_entry(hf_views *v, hf_views_fn fn, hf_views_measure_fn measure, void *arg)
{
    if (measure)
        return measure_entry(v, measure, arg);
    uint64_t tag = TAG_WHOLE;
    GString *whole = g_string_new(NULL);
    g_string_append_len(whole, (const char *)&tag, sizeof tag);
    GArray *cps = g_array_new(FALSE, FALSE, sizeof(checkpoint));
    GString *chunk = g_string_new(NULL);
    uint64_t total = 0, item = 0;
    gboolean keep_whole = TRUE;

    while (item != HF_DONE) {
        checkpoint cp = {total, item};
        g_array_append_val(cps, cp);
        g_string_truncate(chunk, 0);
        uint64_t next = fn(arg, item, chunk, v->chunk);
        if (next != HF_DONE && next <= item)
            next = HF_DONE; /* a renderer that makes no progress ends the view */
        item = next;
        total += chunk->len;
        if (keep_whole) {
            g_string_append_len(whole, chunk->str, chunk->len);
            if (total > v->whole_max)
                keep_whole = FALSE;
        }
    }
    g_string_free(chunk, TRUE);

    if (keep_whole) {
        g_array_free(cps, TRUE);
        return g_string_free_to_bytes(whole);
    }
    g_string_free(whole, TRUE);
    return layout_entry(total, cps);
}

static GBytes *get_entry(hf_views *v, uint64_t key, hf_views_fn fn, hf_views_measure_fn measure,
                         void *arg)
{
    GBytes *e = hf_cache_get(v->cache, key);
    if (!e) {
        e = render_entry(v, fn, measure, arg);
        hf_cache_put(v->cache, key, e);
    }
    return e;
}

static uint64_t entry_tag(GBytes *e)
{
    uint64_t tag;
    memcpy(&tag, g_bytes_get_data(e, NULL), sizeof tag);
    return tag;
}

static uint64_t layout_total(GBytes *e)
{
    uint64_t total;
    memcpy(&total, (const char *)g_bytes_get_data(e, NULL) + 8, sizeof total);
    return total;
}

uint64_t hf_views_size(hf_views *v, uint64_t key, hf_views_fn fn, hf_views_measure_fn measure,
                       void *arg)
{
    GBytes *e = get_entry(v, key, fn, measure, arg);
    uint64_t size = entry_tag(e) == TAG_WHOLE ? g_bytes_get_size(e) - 8 : layout_total(e);
    g_bytes_unref(e);
    return size;
}

typedef struct {
    const checkpoint *cps;
    uint64_t off;
} checkpoint_find;

static bool at_or_before(const void *ud, uint64_t i)
{
    const checkpoint_find *f = ud;
    return f->cps[i].offset <= f->off;
}

/* Read from a LAYOUT entry: re-render from the checkpoint before `off`,
 * asking each render for just the bytes still missing, so a read costs its
 * own bytes and the distance from the checkpoint, not a chunk more. */
static size_t read_layout(hf_views *v, GBytes *e, hf_views_fn fn, void *arg, char *buf,
                          size_t size, uint64_t off)
{
    gsize len;
    const char *p = g_bytes_get_data(e, &len);
    const checkpoint *cps = (const checkpoint *)(p + 16);
    size_t n = (len - 16) / sizeof(checkpoint);
    /* The last checkpoint at or before off: the one before the first past
     * it (the first checkpoint is at offset 0, so there is one). */
    size_t at = (size_t)hf_lower_bound(0, n, at_or_before, &(checkpoint_find){cps, off}) - 1;
    uint64_t pos = cps[at].offset, item = cps[at].item;
    size_t got = 0;
    GString *chunk = g_string_sized_new(size + (size_t)(off - pos) + 4096);
    while (got < size && item != HF_DONE) {
        g_string_truncate(chunk, 0);
        uint64_t next = fn(arg, item, chunk, (size_t)MIN(off + size - pos, (uint64_t)G_MAXSIZE));
        if (next != HF_DONE && next <= item)
            next = HF_DONE;
        item = next;
        uint64_t end = pos + chunk->len;
        if (end > off + got) {
            size_t from = (size_t)(off + got - pos);
            size_t take = MIN(chunk->len - from, size - got);
            memcpy(buf + got, chunk->str + from, take);
            got += take;
        }
        pos = end;
    }
    g_string_free(chunk, TRUE);
    return got;
}

size_t hf_views_read(hf_views *v, uint64_t key, hf_views_fn fn, hf_views_measure_fn measure,
                     void *arg, char *buf, size_t size, uint64_t off)
{
    GBytes *e = get_entry(v, key, fn, measure, arg);
    size_t got = 0;
    if (entry_tag(e) == TAG_WHOLE) {
        gsize len;
        const char *p = g_bytes_get_data(e, &len);
        uint64_t vlen = len - 8;
        if (off < vlen) {
            got = (size_t)MIN((uint64_t)size, vlen - off);
            memcpy(buf, p + 8 + off, got);
        }
    } else if (off < layout_total(e)) {
        got = read_layout(v, e, fn, arg, buf, size, off);
    }
    g_bytes_unref(e);
    return got;
}
