/*
 * collections.h - the JDK's collections read out of a heap (MAT's
 * collection queries): what a HashMap, ArrayList, ... holds, how big its
 * backing array is, and its entries, for JDK 6 to 21 layouts.
 *
 * A class is a collection when it or a super class is one of the known
 * classes (collections.c has the table: HashMap, Hashtable, WeakHashMap,
 * ConcurrentHashMap in both its JDK 6-7 segments and JDK 8+ node forms,
 * IdentityHashMap, ArrayList, Vector, PriorityQueue, CopyOnWriteArrayList,
 * ArrayDeque, LinkedList in both forms, TreeMap, ThreadLocal$ThreadLocalMap,
 * List.of, Set.of and Map.of (ImmutableCollections$ListN, SetN, MapN),
 * and the wrappers around one: HashSet, TreeSet, Properties (JDK 9+),
 * CopyOnWriteArraySet, Collections$Synchronized*, Unmodifiable*,
 * SetFromMap).  Fields are found by name, each in the known class or
 * above it, so a subclass's own field of the same name is never taken.
 *
 * Sizes: `capacity` is the slots of the backing array (a hash table's
 * buckets, half an IdentityHashMap's table: key and value alternate), the
 * size itself for linked structures (LinkedList, TreeMap), 0 where there
 * is no array yet (a JDK 8+ HashMap before its first put).  `wasted` is the
 * bytes an exact-size copy would save: the backing array's bytes at its
 * length less its bytes at the size (the size rule's arithmetic, so 0 for
 * linked structures).  A wrapper (HashSet) reports its inner collection's
 * figures: the inner one is also a collection of its own (its HashMap).
 *
 * Thread safety: pure functions of the finished heap; a hf_hcolls is one
 * caller's (a view's) cache and must not be shared between threads.
 */
#ifndef HF_HEAP_COLLECTIONS_H
#define HF_HEAP_COLLECTIONS_H

#include "decoders/heap/heap.h"

typedef struct {
    uint64_t size, capacity, wasted;
    uint64_t array;  /* the backing array's id, 0 when none */
    uint64_t bytes;  /* the object's shallow bytes and its backing array(s)' */
    bool map;        /* entries are key/value pairs (not a set or a list) */
} hf_hcoll;

/* Whether the table of known classes is sorted by name, as its binary
 * search needs (for the unit test). */
bool hf_hcoll_table_sorted(void);

/* A cache of the fields found by name, per class: one per view call. */
typedef struct hf_hcolls hf_hcolls;
hf_hcolls *hf_hcolls_new(const hf_heap *h, const hf_hsnap *sn);
void hf_hcolls_free(hf_hcolls *cc);

/* Whether class c is a collection (cheap: names up its super chain). */
bool hf_hcoll_class(const hf_hsnap *sn, uint32_t c);
/* The figures of collection ob; false when it is none. */
bool hf_hcoll_measure(hf_hcolls *cc, const hf_hobj *ob, hf_hcoll *out);

/* Calls fn for every entry of collection ob in its own order (buckets,
 * list order, a tree in key order), value 0 for lists and sets; stops when
 * fn returns false.  False when ob is no collection. */
typedef bool (*hf_hcoll_entry_fn)(uint64_t key, uint64_t value, void *ud);
bool hf_hcoll_entries(hf_hcolls *cc, const hf_hobj *ob, hf_hcoll_entry_fn fn, void *ud);

/* A short description of object id: "\"text\"" for a String (cut to 80
 * characters), Integer(5) for a boxed primitive, "null" for 0, "class
 * NAME" for a class object, else the class name and, for an array, its
 * length ("int[100]") or, for a collection, its size ("java.util.HashMap
 * size=3").  Escaped as one column of a table (core/tsv.h). */
void hf_heap_describe(hf_hcolls *cc, uint64_t id, GString *out);
/* The same, not escaped (for a caller that escapes a longer text). */
void hf_heap_describe_raw(hf_hcolls *cc, uint64_t id, GString *out);

/* The type (HF_T_*) class c boxes when it is java.lang.Integer, Long, ...
 * (exactly: not a subclass); 0 for any other class. */
unsigned hf_heap_box_class(const hf_hclass *c);
/* The value of a boxed primitive (java.lang.Integer, ...): its type
 * (HF_T_*) and raw bits; false for any other object. */
bool hf_heap_boxed(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, unsigned *type,
                   uint64_t *bits);

/* The instance field named `name` of class c, declared by class `from` or
 * above it (from: a class index, UINT32_MAX for any); -1 when none. */
int64_t hf_hfield_named(const hf_hsnap *sn, uint32_t c, const char *name, uint32_t from);

#endif
