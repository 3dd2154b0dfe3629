/*
 * keeparray.h - the big arrays an index file will hold, in memory that
 * can be given to that file once it is written.
 *
 * A dump indexed at its first mount holds its index (9 bytes an object for
 * HPROF: 5.4 GB for 600 M objects) in anonymous memory, which the kernel
 * cannot drop, while the same arrays mapped from the index file at a later
 * mount are page cache, which it can.  The difference decides how much of
 * the retained-size computation fits in RAM (core/workmem.h keeps the
 * daemon's anonymous memory within a third of the machine's).  So arrays
 * bound for the index file are allocated here, page-aligned with mmap, and
 * once the file is written (keepfile.h's hf_keepw_map_back) their pages
 * are replaced in place by the file's: same address, same bytes, so the
 * threads reading them meanwhile see no change (mmap MAP_FIXED swaps the
 * pages under the kernel's lock of the address space; a read that faults
 * in between waits for it).  From then on they are read-only.
 *
 * Ownership: an array is its allocator's until hf_keeparray_free, which
 * also unmaps the file's pages and stops watching them (core/mapwatch.h:
 * the file may shrink while mapped).  Thread safety: new and free as
 * malloc and free; hf_keeparray_map on one thread while others read.
 */
#ifndef HF_KEEPARRAY_H
#define HF_KEEPARRAY_H

#include <stddef.h>
#include <stdint.h>

/* len bytes (0 allowed), zeroed, page-aligned; aborts when out of memory,
 * as g_malloc does. */
void *hf_keeparray_new(size_t len);
/* NULL is ignored. */
void hf_keeparray_free(void *p);

/* Replaces the whole pages of the first len bytes of array p (from
 * hf_keeparray_new) by file fd's pages from offset off on, which must hold
 * the same bytes, read-only.  Nothing happens unless off is a multiple of
 * the page size (hf_keeparray_align).  Returns the bytes now mapped from
 * the file (0 on failure: the array stays as it was). */
size_t hf_keeparray_map(void *p, size_t len, int fd, uint64_t off);

/* The alignment a file's section needs for hf_keeparray_map: the page
 * size. */
size_t hf_keeparray_align(void);

#endif
