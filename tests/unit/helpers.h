/*
 * helpers.h - what the unit tests of the decoders share: rendering views
 * (whole, or in chunks compared with the whole), files of a snapshot, an
 * object, a class or a thread by name, links and link directories, the
 * problem list, temporary files and corpus paths.
 *
 * Everything reads the model through the dump's ops and its tables
 * (model.h), as fs/ does, so a test sees what a mount would show.  A helper
 * that cannot do what it is asked (an object that does not exist, a
 * renderer that stops making progress) fails the running cmocka test: call
 * them from tests only.  Strings returned are the caller's (g_free).
 */
#ifndef HF_TEST_HELPERS_H
#define HF_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decoders/core/model.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

/* ---- rendering ---- */

/* View v of renderer fn, whole: rendered in calls that may each stop once
 * `budget` bytes were appended (SIZE_MAX: in one call). */
char *th_render(hf_dump *d, hf_render_fn fn, hf_view v, size_t budget);
/* The same, rendered in one call and in chunks of `budget` bytes: the test
 * fails unless both give the same bytes. */
char *th_render_chunked(hf_dump *d, hf_render_fn fn, hf_view v, size_t budget);

/* How the helpers below render: SIZE_MAX (the default) in one call, else
 * in chunks of that many bytes, each view compared with the whole. */
void th_set_budget(size_t budget);
size_t th_budget(void);

/* ---- files by name ---- */

/* Entries of a table ended by {NULL} (files, links, link directories). */
uint32_t th_n_files(const hf_file *files);
/* Index of file `name` in table files, -1 when the table has none. */
int th_file_index(const hf_file *files, const char *name);
/* Node `index` of snapshot s has file `name`: the table declares it and its
 * has() is NULL or true (what a listing shows). */
bool th_has_file(hf_dump *d, const hf_file *files, uint32_t s, uint64_t index,
                 const char *name);
/* File `name` of node `index` of snapshot s, rendered; NULL when the node
 * has no such file. */
char *th_file(hf_dump *d, const hf_file *files, uint32_t s, uint64_t index, const char *name);

/* Snapshot s's file `name` ("cpu/samples"), NULL when absent. */
char *th_snap_file(hf_dump *d, uint32_t s, const char *name);
/* Names of the files snapshot s has, in table order, each followed by a
 * space: "info sites heap.pprof ". */
char *th_snap_files(hf_dump *d, uint32_t s);
/* Index of object oname / class cname of snapshot s; the test fails when
 * there is none. */
uint64_t th_object(hf_dump *d, uint32_t s, const char *oname);
uint64_t th_class(hf_dump *d, uint32_t s, const char *cname);
/* File `file` of an object, a class (by directory name) or a thread (by
 * index); the object or class must exist, NULL when it lacks the file. */
char *th_object_file(hf_dump *d, uint32_t s, const char *oname, const char *file);
char *th_class_file(hf_dump *d, uint32_t s, const char *cname, const char *file);
char *th_thread_file(hf_dump *d, uint64_t t, const char *file);
bool th_object_has(hf_dump *d, uint32_t s, const char *oname, const char *file);
bool th_class_has(hf_dump *d, uint32_t s, const char *cname, const char *file);
/* MOUNT/info and traces/N (t: the trace's index). */
char *th_info(hf_dump *d);
char *th_trace(hf_dump *d, uint64_t t);

/* Renders (and frees) every file node `index` of snapshot s has in table
 * files, in chunks of budget. */
void th_render_node(hf_dump *d, const hf_file *files, uint32_t s, uint64_t index,
                    size_t budget);
/* Everything a mount can show, in chunks of budget, so that no view may
 * crash or loop (for damaged input): info, the README paragraph, traces,
 * threads, every snapshot file, and every class's and object's files,
 * links and link directory entries (the first 64 slots). */
void th_render_everything(hf_dump *d, size_t budget);

/* ---- links and link directories ---- */

/* Link `name` of table links for node `index`: false when the table has no
 * such link or the node has none. */
bool th_link(hf_dump *d, const hf_link *links, const char *name, uint32_t s, uint64_t index,
             hf_target *to);
/* An object's link (class, scope) by object name. */
bool th_object_link(hf_dump *d, uint32_t s, const char *oname, const char *link,
                    hf_target *to);
/* A class's link (super) by class name. */
bool th_class_link(hf_dump *d, uint32_t s, const char *cname, const char *link,
                   hf_target *to);
/* Entry `slot` of an object's refs/ and the slot of a name there (-1). */
hf_ref_status th_ref(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot, char name[HF_NAME_MAX],
                     hf_target *to);
int64_t th_ref_find(hf_dump *d, uint32_t s, uint64_t o, const char *name);
/* Object o has a refs/ directory. */
bool th_has_refs(hf_dump *d, uint32_t s, uint64_t o);

/* ---- the rest ---- */

/* The problem list, one line each ("" when none). */
char *th_problems(hf_dump *d);
/* A new temporary file holding data; returns its path (unlink, g_free). */
char *th_write_temp(const void *data, size_t len);
/* Path of a corpus file: $CORPUS/sub/name, by default
 * tests/corpus/sub/name (tests run from the project root).  name NULL: the
 * directory. */
char *th_corpus(const char *sub, const char *name);
/* tests/fixtures/name. */
char *th_fixture(const char *name);

/* Checks that take (and free) a rendered string. */
#define assert_contains(hay, needle)                                                     \
    do {                                                                                 \
        char *h_ = (hay);                                                                \
        if (!h_)                                                                         \
            fail_msg("%s:%d: no such file (looking for %s)", __FILE__, __LINE__, (needle)); \
        if (!strstr(h_, (needle)))                                                       \
            fail_msg("%s:%d: %s\n--- not in ---\n%s", __FILE__, __LINE__, (needle), h_); \
        g_free(h_);                                                                      \
    } while (0)
#define assert_lacks(hay, needle)                                                        \
    do {                                                                                 \
        char *h_ = (hay);                                                                \
        if (!h_)                                                                         \
            fail_msg("%s:%d: no such file (looking for %s)", __FILE__, __LINE__, (needle)); \
        if (strstr(h_, (needle)))                                                        \
            fail_msg("%s:%d: %s\n--- is in ---\n%s", __FILE__, __LINE__, (needle), h_);  \
        g_free(h_);                                                                      \
    } while (0)

#endif
