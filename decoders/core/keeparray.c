/*
 * keeparray.c - see keeparray.h.  Each array is preceded by a page of its
 * own holding its length and how much of it the file backs, so that free
 * needs nothing but the pointer.
 */
#include "decoders/core/keeparray.h"
#include "decoders/core/mapwatch.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAGIC 0x6b65657061727279ull /* "keeparry" */
#define CHECKED 64                  /* pages compared before the swap */

typedef struct {
    uint64_t magic;
    size_t len;    /* as asked */
    size_t mapped; /* bytes from the start backed by the file */
} head;

size_t hf_keeparray_align(void)
{
    return (size_t)sysconf(_SC_PAGESIZE); /* no cache: threads would race on it */
}

static head *head_of(void *p)
{
    head *h = (head *)(void *)((uint8_t *)p - hf_keeparray_align());
    g_assert(h->magic == MAGIC);
    return h;
}

static size_t span(size_t len)
{
    size_t pg = hf_keeparray_align();
    return pg + (len + pg - 1) / pg * pg;
}

void *hf_keeparray_new(size_t len)
{
    void *base = mmap(NULL, span(len), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        g_error("heapfs: out of memory: %zu bytes for the index", len);
    *(head *)base = (head){MAGIC, len, 0};
    return (uint8_t *)base + hf_keeparray_align();
}

void hf_keeparray_free(void *p)
{
    if (!p)
        return;
    head *h = head_of(p);
    if (h->mapped)
        hf_mapwatch_remove(p);
    munmap(h, span(h->len));
}

/* Whether the file's pages at q hold what p does: the first and last page
 * and CHECKED spread between, so that a wrong offset is caught without
 * reading gigabytes. */
static bool same(const uint8_t *p, const uint8_t *q, size_t n)
{
    size_t pg = hf_keeparray_align(), pages = n / pg;
    for (size_t i = 0; i <= CHECKED && pages; i++) {
        size_t at = pages == 1 ? 0 : (pages - 1) * i / CHECKED * pg;
        if (memcmp(p + at, q + at, pg) != 0)
            return false;
    }
    return true;
}

size_t hf_keeparray_map(void *p, size_t len, int fd, uint64_t off)
{
    size_t pg = hf_keeparray_align();
    head *h = head_of(p);
    size_t n = MIN(len, h->len) / pg * pg;
    if (!n || off % pg || h->mapped)
        return 0;
    /* mapped elsewhere first: a failure there leaves the array as it is;
     * then moved over it, the old pages going in the same step */
    void *q = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, (off_t)off);
    if (q == MAP_FAILED)
        return 0;
    if (!same(p, q, n) || mremap(q, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED) {
        munmap(q, n);
        return 0;
    }
    h->mapped = n;
    hf_mapwatch_add(p, n); /* the file may shrink while mapped */
    return n;
}
