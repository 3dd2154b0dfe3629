/* parts.c - see parts.h. */
#include "fs/parts.h"

/* Entries of a table ended by a NULL name (the name comes first in
 * hf_file, hf_link and hf_linkdir alike), at most max. */
static uint32_t table_len(const void *table, size_t stride, uint32_t max)
{
    uint32_t n = 0;
    while (table && n < max && *(const char *const *)((const char *)table + n * stride))
        n++;
    return n;
}

uint32_t hf_parts_n_files(const hf_parts *p)
{
    return table_len(p ? p->files : NULL, sizeof(hf_file), HF_FILES_MAX);
}

uint32_t hf_parts_n_links(const hf_parts *p)
{
    return table_len(p ? p->links : NULL, sizeof(hf_link), HF_FILES_MAX);
}

uint32_t hf_parts_n_dirs(const hf_parts *p)
{
    return table_len(p ? p->dirs : NULL, sizeof(hf_linkdir), HF_DIRS_MAX);
}

bool hf_parts_file_exists(const hf_parts *p, uint32_t f, hf_snapref r, uint64_t index)
{
    if (f >= hf_parts_n_files(p))
        return false;
    hf_has_fn has = p->files[f].has;
    return !has || has(r.d, r.s, index);
}

bool hf_parts_dir_exists(const hf_parts *p, uint32_t k, hf_snapref r, uint64_t index)
{
    if (k >= hf_parts_n_dirs(p))
        return false;
    hf_has_fn has = p->dirs[k].has;
    return !has || has(r.d, r.s, index);
}

bool hf_parts_link_target(const hf_parts *p, uint32_t l, hf_snapref r, uint64_t index,
                          hf_target *to)
{
    return l < hf_parts_n_links(p) && p->links[l].target(r.d, r.s, index, to);
}

bool hf_parts_link_exists(const hf_parts *p, uint32_t l, hf_snapref r, uint64_t index)
{
    hf_target to;
    if (l >= hf_parts_n_links(p))
        return false;
    hf_has_fn has = p->links[l].has;
    return has ? has(r.d, r.s, index) : hf_parts_link_target(p, l, r, index, &to);
}

