/*
 * retrefuse.c - see retcompute.h: the snapshots whose graph is not
 * computed at all, and why.
 */
#include "decoders/heap/retcompute.h"

#include "decoders/core/workmem.h"

/* "4.6 MiB", "3.0 GiB": glib's g_format_size, with a plain space (its
 * own is a no-break space, which grep's users would not type). */
static char *size_text(uint64_t bytes)
{
    GFormatSizeFlags iec = G_FORMAT_SIZE_IEC_UNITS;
    char *value = g_format_size_full(bytes, iec | G_FORMAT_SIZE_ONLY_VALUE);
    char *unit = g_format_size_full(bytes, iec | G_FORMAT_SIZE_ONLY_UNIT);
    char *t = g_strdup_printf("%s %s", value, unit);
    g_free(value);
    g_free(unit);
    return t;
}

/* Why the default budget (auto) does not compute a snapshot's graph in
 * this memory, or NULL.  Per object the dominator pass reads and writes
 * at least 16 bytes at random (its forest 8, its numbers 4, the
 * successors' offsets 4; the successors and the BFS more), beside what
 * the daemon holds already (its index): when even that exceeds all the
 * memory the daemon may have (a memory cgroup far smaller than the dump),
 * nearly every step is a read from disk (5 M objects in 64 MiB: 700 GB
 * read in 7 minutes, not done; 200 M in 1 GiB: the BFS read 130 GB in 4
 * minutes, far from done).  A budget the user chose runs anyway. */
static char *beyond_memory(const hf_heap *h, uint64_t n)
{
    uint64_t total = hf_mem_total(""), random = 16 * (n + 1), held = hf_mem_anon();
    if (h->base.work.mode != HF_WORK_AUTO || total == UINT64_MAX || random + held <= total)
        return NULL;
    char *need = size_text(random), *have = size_text(total), *index = size_text(held);
    char *why = g_strdup_printf("%" G_GUINT64_FORMAT " objects: the dominator pass reads %s "
                                "at random (16 bytes an object at least), and the daemon "
                                "holds %s already, more than the %s it may have (its memory "
                                "cgroup's limit, or MemTotal): nearly every step would wait "
                                "for the disk, for hours or days; give it more memory, or "
                                "mount with -o retained_mem=file to run it anyway",
                                (guint64)n, need, index, have);
    g_free(need);
    g_free(have);
    g_free(index);
    return why;
}

char *hf_hgraph_refused(const hf_heap *h, const hf_hsnap *sn)
{
    if (!sn || sn->n_objects >= UINT32_MAX - 2)
        return g_strdup_printf("%" G_GUINT64_FORMAT " objects: node numbers are 32-bit, "
                               "so a snapshot may have at most 4294967293",
                               sn ? (guint64)sn->n_objects : 0);
    return beyond_memory(h, sn->n_objects);
}
