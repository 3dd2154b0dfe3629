/*
 * helpers.h - what the unit tests of the decoders share: rendering views
 * (whole, or in chunks compared with the whole), files of a snapshot, an
 * object, a class or a thread by name, links and link directories, the
 * problem list, temporary files and corpus paths; and builders of BMD and
 * OEMP test files, which more than one test file writes.
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
/* The same for a file snapshot s must have: the test fails when absent. */
char *th_snap_file_needed(hf_dump *d, uint32_t s, const char *name);
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

/* Runs the group twice, as cmocka_run_group_tests_name: with the working
 * arrays of core/workmem.h in RAM, then every one in a file of a new
 * temporary directory (-o retained_mem=file, a dump larger than memory);
 * the number of failures, one more if the files left a name behind. */
int th_run_in_ram_and_files(const char *name, const struct CMUnitTest *tests, size_t count);

/* ---- opening bytes ---- */

/* Writes data to a new temporary file and opens it as heapfs would
 * (opts NULL: none).  With path, the file stays until th_close_temp;
 * without, it is removed at once (the dump keeps its mapping).  With err,
 * NULL and *err set when the file does not open; without, the test fails
 * then. */
hf_dump *th_open_temp(const void *data, size_t len, const hf_open_opts *opts, char **path,
                      GError **err);
/* Closes d, removes the file at path and frees path. */
void th_close_temp(hf_dump *d, char *path);

/* ---- text and problems ---- */

/* Whether text holds `line` as a whole line. */
bool th_has_line(const char *text, const char *line);
/* Whether one of d's problems contains `what`. */
bool th_has_problem(hf_dump *d, const char *what);
/* Snapshot s's object names in index order, separated by spaces. */
char *th_object_names(hf_dump *d, uint32_t s);

/* ---- BMD files built byte by byte (test_bmd*.c) ---- */

/* BMD's field types. */
enum {
    TH_BMD_OBJ,
    TH_BMD_INT,
    TH_BMD_BOOL,
    TH_BMD_BYTE,
    TH_BMD_CHAR,
    TH_BMD_FLOAT,
    TH_BMD_DOUBLE,
    TH_BMD_LONG,
    TH_BMD_SHORT
};
/* A new file with its header: version 1, "JAVA PROFILE 1.0.3". */
GByteArray *th_bmd_start(void);
void th_bmd_u8(GByteArray *b, uint8_t v);
/* Bytes written as hex digits ("9a81ec9a01"; spaces between bytes). */
void th_bmd_hex(GByteArray *b, const char *hex);
void th_bmd_varint(GByteArray *b, uint64_t v);
/* As Java's writeInt32: negatives sign-extended to 64 bits (10 bytes). */
void th_bmd_int(GByteArray *b, int32_t v);
void th_bmd_raw(GByteArray *b, const void *p, size_t n);
/* 4 bytes big-endian, as in the bodies of legacy HPROF records. */
void th_bmd_u4(GByteArray *b, uint32_t v);
/* A value of field type t (TH_BMD_*) as BMD writes it. */
void th_bmd_value(GByteArray *b, int t, uint64_t v);
/* Records. */
void th_bmd_string(GByteArray *b, uint32_t id, const char *s);
void th_bmd_hashed(GByteArray *b, uint32_t id, const char *s);
/* Class with nf fields {name, type} (pairs), ns statics {name, type,
 * value} (triples), one constant (index 7, int 99), discarded bytes. */
void th_bmd_class(GByteArray *b, uint32_t id, uint32_t super, uint32_t name, int ns,
                  const uint64_t *st, int nf, const uint32_t *f, uint32_t discarded);
void th_bmd_instance(GByteArray *b, uint32_t id, uint32_t cls);
void th_bmd_roots(GByteArray *b, int n, const uint32_t *ids);
void th_bmd_objarray(GByteArray *b, uint32_t id, uint32_t cls, int n, const uint32_t *el);
void th_bmd_primarray(GByteArray *b, uint32_t id, uint32_t type, uint32_t n);
void th_bmd_legacy(GByteArray *b, uint32_t tag, const GByteArray *body);
/* th_open_temp for a BMD file, kept at *path: the test fails unless the
 * BMD decoder opens it. */
hf_dump *th_bmd_open(const GByteArray *b, const hf_open_opts *opts, char **path);

/* ---- OEMP recordings built line by line (test_oemp*.c) ---- */

/* An AppObjCatalog section body: types 1 to 5. */
#define TH_OEMP_ACAT                                                                     \
    "\"Procedure\" 1\n\"OOABL Obj\" 2\n\"OO Builtin\" 3\n\"DB Connection\" 4\n\"Buffer\" 5\n"
/* A version 2 snapshot from its section bodies (each "" or lines ending
 * in \n), appended to out. */
void th_oemp_snap(GString *out, int seq, const char *pcat, const char *acat, const char *bcat,
                  const char *pdata, const char *abln, const char *othn, const char *nodes,
                  const char *aobj, const char *chg, const char *del);
/* An AppObjData line: id type mem node line src scope nameid biotyp. */
void th_oemp_aobj(GString *out, uint64_t id, int type, int64_t mem, int node, int line, int src,
                  uint64_t scope, int nameid, int bio);

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
