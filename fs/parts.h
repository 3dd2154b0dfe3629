/*
 * parts.h - a decoder's tables of parts (model.h hf_parts): how many
 * files, links and link directories a table declares, and whether one
 * exists for a given node (its has() or, for a link, its target()).
 *
 * Pure functions of the tables and the dump; thread-safe.  No FUSE header.
 */
#ifndef HF_PARTS_H
#define HF_PARTS_H

#include "decoders/core/compare.h"
#include "decoders/core/model.h"

/* Entries of a table (p may be NULL: none), at most HF_FILES_MAX or
 * HF_DIRS_MAX. */
uint32_t hf_parts_n_files(const hf_parts *p);
uint32_t hf_parts_n_links(const hf_parts *p);
uint32_t hf_parts_n_dirs(const hf_parts *p);

/* Whether file f, link directory k or link l of table p exists for node
 * `index` of snapshot r (false past the table's end). */
bool hf_parts_file_exists(const hf_parts *p, uint32_t f, hf_snapref r, uint64_t index);
bool hf_parts_dir_exists(const hf_parts *p, uint32_t k, hf_snapref r, uint64_t index);
bool hf_parts_link_exists(const hf_parts *p, uint32_t l, hf_snapref r, uint64_t index);
/* Where link l leads; false when the node has no such link. */
bool hf_parts_link_target(const hf_parts *p, uint32_t l, hf_snapref r, uint64_t index,
                          hf_target *to);

#endif
