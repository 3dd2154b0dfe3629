/*
 * flamediff.h - flame-diff.svg: a snapshot's stacks.folded drawn against
 * the snapshot before it (mount.h's comparison files), maybe of another
 * dump or format: frames sized by the later snapshot's bytes, coloured by
 * their change (flame.h hf_flame_render_diff).
 *
 * Two snapshots share no frame numbers, so frames are matched by their
 * text as stacks.folded writes it (the text the picture shows): a frame
 * of the later snapshot is the same frame in the earlier one when its path
 * of names from the root is the same.  The samples come from each
 * decoder's hf_dump_ops.stacks (model.h), the builder stacks.folded
 * renders, so snapshots of any formats with stacks compare.
 *
 * Pure functions of the dumps; thread-safe.
 */
#ifndef HF_FLAMEDIFF_H
#define HF_FLAMEDIFF_H

#include "decoders/core/model.h"

/* flame-diff.svg of `now` against `before`, whole (render protocol:
 * everything at first 0, nothing after); nothing where either has no
 * samples.  Decoders set it as hf_dump_ops.flame_diff; fs/ calls it
 * through compare.h, which checks first that both have stacks.folded. */
uint64_t hf_flame_diff_render(hf_snapref before, hf_snapref now, uint64_t first, GString *out,
                              size_t budget);

#endif
