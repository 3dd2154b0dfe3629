/*
 * mapwatch.h - telling the front end about files the decoders map after
 * open, so that one that shrinks while mapped can be survived (fs/guard.h:
 * reading past the new end of a truncated file raises SIGBUS).
 *
 * decoders/core/keepfile.c reports every index and retained results file it
 * maps, and keeparray.c the index file's pages it maps over the arrays
 * built, for as long as they are mapped; the front end (fs/main.c) sets the
 * watcher once, before any dump is opened.  Without a watcher (unit tests,
 * tools) nothing is reported.
 *
 * Thread safety: hf_mapwatch_set before any other call; the others from any
 * thread, as the watcher's functions must allow.
 */
#ifndef HF_MAPWATCH_H
#define HF_MAPWATCH_H

#include <stddef.h>

typedef struct {
    void (*add)(const void *base, size_t len); /* mapped: [base, base+len) */
    void (*remove)(const void *base);          /* about to be unmapped */
} hf_mapwatch;

void hf_mapwatch_set(const hf_mapwatch *w);
void hf_mapwatch_add(const void *base, size_t len);
void hf_mapwatch_remove(const void *base);

#endif
