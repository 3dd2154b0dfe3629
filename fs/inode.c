/* inode.c - see inode.h for the layout. */
#include "fs/inode.h"

#define ROOT_INO 1 /* FUSE_ROOT_ID, without including FUSE here */

hf_node hf_node_make(hf_node_kind kind, uint32_t snap, uint64_t a, uint32_t b)
{
    hf_node n = {kind, snap, a, b};
    return n;
}

bool hf_node_equal(const hf_node *x, const hf_node *y)
{
    return x->kind == y->kind && x->snap == y->snap && x->a == y->a && x->b == y->b;
}

uint64_t hf_ino_encode(const hf_node *n)
{
    if (n->kind == HF_N_ROOT)
        return ROOT_INO;
    return ((uint64_t)n->kind << (63 - HF_KIND_BITS)) | ((uint64_t)(n->snap & (HF_SNAP_MAX - 1)) << 46) |
           ((n->a & (HF_A_MAX - 1)) << 15) | (n->b & (HF_B_MAX - 1));
}

bool hf_ino_decode(uint64_t ino, hf_node *n)
{
    if (ino == ROOT_INO) {
        *n = hf_node_make(HF_N_ROOT, 0, 0, 0);
        return true;
    }
    if (ino >> 63)
        return false;
    unsigned kind = (unsigned)(ino >> (63 - HF_KIND_BITS));
    if (kind == HF_N_ROOT || kind >= HF_N_KINDS)
        return false;
    if (kind == HF_N_ROOT_FILE && (ino & (HF_B_MAX - 1)) >= HF_RF_N)
        return false;
    *n = hf_node_make((hf_node_kind)kind, (uint32_t)((ino >> 46) & (HF_SNAP_MAX - 1)),
                      (ino >> 15) & (HF_A_MAX - 1), (uint32_t)(ino & (HF_B_MAX - 1)));
    return true;
}
