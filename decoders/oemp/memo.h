/*
 * memo.h - a bounded, thread-safe memo of values made once per key.
 *
 * For what a decoder builds lazily and wants to keep for a while, but not
 * for ever: oemp_memo_get(m, key, make, ud) returns the value for `key`,
 * calling make(key, ud) only when the memo does not hold one.  Keys are
 * 64-bit numbers chosen by the caller (OEMP uses snapshot indices).
 *
 * One make per key: callers that ask for a key whose value is being made
 * wait for that make instead of making their own copy.  The values this is
 * for are expensive (a snapshot's live set can be hundreds of MiB, rebuilt
 * in seconds), and a FUSE daemon asks for the same one from many threads at
 * once (an `ls -l` of a snapshot's objects); making it twice and keeping
 * one would cost that memory and time once per thread.  Makes of different
 * keys run at the same time: make is called without the memo's lock.
 *
 * Bounds: values nobody holds stay in the memo for reuse.  After each get
 * that makes a value and after each unref that releases one, the memo drops
 * unreferenced values, least recently used first (by their last release),
 * while it holds more than max_entries values or, when it has a byte bound
 * (oemp_memo_new_bytes), while their sizes add up to more than max_bytes.  It
 * never drops the value that get or unref has just handled, so the most
 * recent value is kept however big it is, nor a value that is in use: the
 * memo may hold more than max_entries values while more than that are held.
 *
 * Ownership: the memo owns the values make returns and frees them with
 * free_value.  oemp_memo_get returns a reference that the caller gives back
 * with oemp_memo_unref(m, value); a value is never freed while referenced.
 * make must return a non-NULL value that is distinct from every other value
 * in the memo (values are told apart by their address in oemp_memo_unref).
 *
 * Thread safety: oemp_memo_get and oemp_memo_unref may be called from any
 * thread.  make runs on the calling thread, unlocked; it may use other
 * memos (or this one, for other keys), but must not ask this memo for its
 * own key (it would wait for itself).  size_of and free_value are called
 * without the lock too.  oemp_memo_new and oemp_memo_free must not race with
 * other calls, and oemp_memo_free needs every value to have been given back.
 * Knows nothing of FUSE or of dump formats.
 */
#ifndef HF_OEMP_MEMO_H
#define HF_OEMP_MEMO_H

#include <glib.h>

typedef struct oemp_memo oemp_memo;

/* Makes the value of `key` (never NULL); ud is oemp_memo_get's. */
typedef gpointer (*oemp_memo_make_fn)(guint64 key, gpointer ud);
/* The bytes a value takes, for the byte bound. */
typedef gsize (*oemp_memo_size_fn)(gconstpointer value);

/* Keeps up to max_entries values nobody holds (0: none but the latest). */
oemp_memo *oemp_memo_new(guint max_entries, GDestroyNotify free_value);
/* Also keeps them within max_bytes, as size_of counts them. */
oemp_memo *oemp_memo_new_bytes(guint max_entries, gsize max_bytes, oemp_memo_size_fn size_of,
                               GDestroyNotify free_value);
/* Frees the memo and every value in it.  NULL is fine. */
void oemp_memo_free(oemp_memo *m);
/* A reference to the value of key, made now if the memo holds none. */
gpointer oemp_memo_get(oemp_memo *m, guint64 key, oemp_memo_make_fn make, gpointer ud);
/* Gives back a reference from oemp_memo_get.  NULL is fine. */
void oemp_memo_unref(oemp_memo *m, gpointer value);

#endif
