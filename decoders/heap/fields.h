/*
 * fields.h - the instance fields of a class, walked up its super classes.
 *
 * A class keeps only the fields it declares (hf_hclass.decl, each with its
 * offset in the class's own part of the instance data, and own_refs, the
 * offsets of its own reference fields) and the totals of its chain
 * (n_fields, n_refs, data_size).  The fields of an instance, in
 * instance-data order (the class's own, then its super's, and so on up),
 * are walked here when they are needed, so the memory classes take is
 * linear in the file's field records: a copy of the chain in every class
 * was quadratic in the depth (40 classes of 65535 fields each took 2 GB).
 *
 * A walk follows the chain as the classes were laid out (build.c): it
 * stops after n_fields fields, so a chain cut there (a loop, more than
 * HF_HCHAIN_MAX classes, more than HF_HFIELDS_MAX fields) is cut here too.
 *
 * The refs/ name of a field (hf_hfields_refname): its name, escaped when
 * it is no file name (names.h) and cut to HF_HNAME_KEEP bytes then marked
 * ~INDEX when too long; name@Declaring when a field nearer the class (met
 * earlier in the walk) has the same name.
 *
 * Thread safety: a walk is the caller's (on its stack); it only reads the
 * finished classes.
 */
#ifndef HF_HEAP_FIELDS_H
#define HF_HEAP_FIELDS_H

#include "decoders/heap/heap.h"

/* Classes of one chain at most (deeper supers are left out), and fields
 * of one chain at most: a class beyond is laid out without its supers,
 * and the problem reported.  (HotSpot allows 65535 fields per class; a
 * chain of 4 million fields is work no real dump asks for: 64 such
 * classes, each instance megabytes of fields.) */
#define HF_HCHAIN_MAX 256
#define HF_HFIELDS_MAX (1u << 22)
/* Names longer than this are cut (then marked "~" and made unique) to
 * stay file names: HF_NAME_MAX with room for "@0xID" suffixes. */
#define HF_HNAME_KEEP 200

typedef struct {
    const hf_hsnap *sn;
    const hf_hclass *top; /* the class whose fields these are */
    const hf_hclass *at;  /* the class declaring the current field */
    uint32_t k;           /* index in at->decl of the next field */
    uint32_t base;        /* offset of at's own part in the instance data */
    uint32_t levels;
    /* the current field, once hf_hfields_next returned true */
    const hf_hfield *f;
    uint32_t index;  /* among the class's instance fields, from 0 */
    uint32_t offset; /* in the instance data */
    uint32_t ref;    /* among its reference fields, when f is one */
    GString *buf;    /* a refname made up */
} hf_hfields;

/* A walk over c's instance fields (c may be NULL: none); hf_hfields_end
 * frees it. */
void hf_hfields_begin(hf_hfields *it, const hf_hsnap *sn, const hf_hclass *c);
/* Moves the walk to just before field i: the next one is i (a view
 * rendered from its middle).  O(depth + fields i's class declares). */
void hf_hfields_seek(hf_hfields *it, uint32_t i);
/* Moves to the next field; false after the last. */
bool hf_hfields_next(hf_hfields *it);
/* The current field's refs/ name, valid until the next call.  Whether a
 * field met before has its name is a binary search in each class between
 * (hf_hclass.by_name): O(depth * log fields). */
const char *hf_hfields_refname(hf_hfields *it);
void hf_hfields_end(hf_hfields *it);

/* Field i of c's instance fields and its offset in the instance data;
 * NULL past the last.  O(depth of the chain). */
const hf_hfield *hf_hfield_at(const hf_hsnap *sn, const hf_hclass *c, uint32_t i,
                              uint32_t *offset);
/* The refs/ name of field i of c, into name; false past the last. */
bool hf_hfield_refname(const hf_hsnap *sn, const hf_hclass *c, uint32_t i,
                       char name[HF_NAME_MAX]);

/* Fills c->by_name (c's declared fields by name), which
 * hf_hfield_refname searches; when classes are laid out or loaded. */
void hf_hclass_index_names(hf_hclass *c);

/* Index of c's reference field whose refs/ name is name, -1.  O(fields). */
int64_t hf_hfield_ref_named(const hf_hsnap *sn, const hf_hclass *c, const char *name);

/* The super class whose part of the instance data follows c's part, and
 * *base moved from c's part to it; NULL when there is none (a damaged
 * index file's sizes included).  The caller stops where the chain as laid
 * out ends (n_fields). */
const hf_hclass *hf_hclass_next_part(const hf_hsnap *sn, const hf_hclass *c, uint32_t *base);

/* Length of s cut to at most HF_HNAME_KEEP bytes without splitting a UTF-8
 * sequence or a %XX escape (names.h). */
size_t hf_hname_cut(const char *s);

#endif
