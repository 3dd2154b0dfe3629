/*
 * heap.c - (an extra of this format) the text HEAP DUMP (ROOT, CLS, OBJ
 * and ARR lines) on the neutral heap layer (heap.h), and the codec that
 * reads an object back from its line.
 *
 * What the text has, and so what the tree shows: objects with their class,
 * size ("sz=") and allocation trace; for instances only the references
 * that are not null ("\tname\t\tID"), for object arrays the non-null
 * elements ("\t[i]\t\tID"), for primitive arrays only the length; classes
 * with their super class and non-null static references.  There are no
 * primitive values and no string contents, so a class's fields are the
 * reference fields seen in its instances (each on the highest class whose
 * own instances show it), strings/ and value files are absent, and the
 * fields and refs of an object are read from its lines (objects.c), not
 * through the layer's fixed layouts.
 *
 * A field shadowed by a subclass's field of the same name appears twice in
 * one object, the super class's first (the agent lists a class's fields
 * after its super class's).  A class whose instances show a name k times
 * has k fields of that name on its chain: it declares one, the others are
 * pushed up to its super class (and on), so the layer names them
 * name@Declaring as it does for the binary format.
 *
 * Sizes: every object's size is the agent's "sz=" on its line (instances:
 * the same for every instance of a class, which the layer's rule cannot
 * know without the primitive fields; arrays: whatever the agent counted,
 * even with "nelems=0").  Class objects have no sz= and count 0 bytes, so
 * a histogram adds up to the file's sz= values.
 *
 * Ownership: the scanner's tables live until hproftxt_hscan_finish.
 * Thread safety: building is single-threaded; the codec is pure.
 */
#include "decoders/hproftxt/hproftxt.h"
#include "decoders/heap/build.h"

#include <inttypes.h>
#include <string.h>

/* ---- reading one record line (pure: the codec and the scanner) ---- */

/* End of the line at off (the offset of its '\n' or of the file's end). */
static uint64_t line_end(const hf_heap *h, uint64_t off)
{
    const char *d = (const char *)h->base.data;
    const char *nl = memchr(d + off, '\n', h->base.size - off);
    return nl ? (uint64_t)(nl - d) : h->base.size;
}

/* The text of `key=` up to ',' or ')' within [s, e); NULL when absent. */
static const char *field(const char *s, const char *e, const char *key, size_t *len)
{
    size_t kl = strlen(key);
    for (const char *p = s; p + kl <= e; p++) {
        if (memcmp(p, key, kl) == 0 && (p == s || p[-1] == '(' || p[-1] == ' ')) {
            const char *v = p + kl, *q = v;
            while (q < e && *q != ',' && *q != ')')
                q++;
            *len = (size_t)(q - v);
            return v;
        }
    }
    return NULL;
}

static uint64_t hex(const char *s, const char *e)
{
    uint64_t v = 0;
    while (s < e && g_ascii_isxdigit(*s))
        v = v << 4 | (uint64_t)g_ascii_xdigit_value(*s++);
    return v;
}

static uint64_t dec(const char *s, const char *e)
{
    uint64_t v = 0;
    while (s < e && g_ascii_isdigit(*s))
        v = v * 10 + (uint64_t)(*s++ - '0');
    return v;
}

static unsigned prim_type(const char *s, size_t n)
{
    static const struct { const char *name; unsigned t; } prims[] = {
        {"boolean[]", HF_T_BOOLEAN}, {"char[]", HF_T_CHAR}, {"float[]", HF_T_FLOAT},
        {"double[]", HF_T_DOUBLE},   {"byte[]", HF_T_BYTE}, {"short[]", HF_T_SHORT},
        {"int[]", HF_T_INT},         {"long[]", HF_T_LONG},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(prims); i++)
        if (strlen(prims[i].name) == n && memcmp(prims[i].name, s, n) == 0)
            return prims[i].t;
    return 0;
}

typedef struct {
    char kind; /* 'O' OBJ, 'A' ARR, 'C' CLS, 0 unreadable */
    uint64_t id, class_id, length, size;
    uint32_t trace;
    uint8_t elem; /* ARR of a primitive type */
    const char *name; /* CLS: name=, OBJ: class name before '@' */
    size_t name_len;
} rec;

static bool read_rec(const hf_heap *h, uint64_t loc, rec *r)
{
    memset(r, 0, sizeof *r);
    if (loc >= h->base.size)
        return false;
    const char *s = (const char *)h->base.data + loc, *e = (const char *)h->base.data +
                                                          line_end(h, loc);
    if (e - s < 5)
        return false;
    if (memcmp(s, "OBJ ", 4) == 0)
        r->kind = 'O';
    else if (memcmp(s, "ARR ", 4) == 0)
        r->kind = 'A';
    else if (memcmp(s, "CLS ", 4) == 0)
        r->kind = 'C';
    else
        return false;
    r->id = hex(s + 4, e);
    size_t n;
    const char *v;
    if ((v = field(s, e, "trace=", &n)))
        r->trace = (uint32_t)dec(v, v + n);
    if ((v = field(s, e, "sz=", &n)))
        r->size = dec(v, v + n);
    if (r->kind == 'C') {
        r->name = field(s, e, "name=", &r->name_len);
        return r->name != NULL;
    }
    if (r->kind == 'O') {
        v = field(s, e, "class=", &n);
        /* "class=java.lang.Thread@50000077": the id after the last '@' */
        const char *at = v ? g_strrstr_len(v, (gssize)n, "@") : NULL;
        if (!at)
            return false;
        r->name = v;
        r->name_len = (size_t)(at - v);
        r->class_id = hex(at + 1, v + n);
        return true;
    }
    if ((v = field(s, e, "nelems=", &n)))
        r->length = dec(v, v + n);
    v = field(s, e, "elem type=", &n);
    if (!v)
        return false;
    const char *at = g_strrstr_len(v, (gssize)n, "@");
    if (at) { /* "elem type=java.lang.String[]@5000abcd": the array class */
        r->class_id = hex(at + 1, v + n);
        return true;
    }
    r->elem = (uint8_t)prim_type(v, n);
    return r->elem != 0;
}

/* ---- the codec ---- */

static uint64_t codec_object_id(const hf_heap *h, uint64_t loc)
{
    rec r;
    read_rec(h, loc, &r);
    return r.id;
}

static bool codec_shape(const hf_heap *h, uint64_t loc, hf_hshape *out)
{
    rec r;
    if (!read_rec(h, loc, &r))
        return false;
    memset(out, 0, sizeof *out);
    switch (r.kind) {
    case 'O':
        out->kind = HF_K_INSTANCE;
        out->class_id = r.class_id;
        return true;
    case 'A':
        out->kind = r.elem ? HF_K_PRIMARRAY : HF_K_OBJARRAY;
        out->elem = r.elem;
        out->class_id = r.class_id;
        out->length = r.length;
        return true;
    default:
        out->kind = HF_K_CLASS;
        return true;
    }
}

static bool codec_object(const hf_heap *h, uint64_t loc, hf_hobj *ob)
{
    rec r;
    if (!read_rec(h, loc, &r))
        return false;
    ob->id = r.id;
    ob->loc = loc;
    ob->trace = r.trace;
    ob->length = r.length;
    ob->elem = r.kind == 'A' ? (r.elem ? r.elem : HF_T_OBJECT) : 0;
    ob->kind = r.kind == 'O' ? HF_K_INSTANCE : r.kind == 'C' ? HF_K_CLASS
               : r.elem ? HF_K_PRIMARRAY : HF_K_OBJARRAY;
    /* The values live in the lines that follow; the layer's layouts cannot
     * address them (see the top of this file), so none are handed out. */
    ob->nodata = ob->kind == HF_K_PRIMARRAY;
    ob->data = ob->end = NULL;
    return true;
}

const hf_heap_codec hproftxt_codec = {
    .fixed_be = false,
    .object_id = codec_object_id,
    .shape = codec_shape,
    .object = codec_object,
    .value = hf_codec_no_value,
    .element = hf_codec_no_element,
};

/* ---- sub-lines of an object: "\tname\t\tID" ---- */

bool hproftxt_sub_line(const char *s, size_t len, const char **name, size_t *name_len, uint64_t *id)
{
    if (len < 2 || s[0] != '\t')
        return false;
    const char *e = s + len;
    const char *n = s + 1, *q = n;
    while (q < e && *q != '\t')
        q++;
    if (q == e || q == n)
        return false;
    *name = n;
    *name_len = (size_t)(q - n);
    while (q < e && *q == '\t')
        q++;
    if (q == e || !g_ascii_isxdigit(*q))
        return false;
    *id = hex(q, e);
    return true;
}

/* ---- scanning ---- */

typedef struct {
    uint64_t id, super_id, loader_id;
    uint32_t trace, inst_size;
    const char *name;      /* interned */
    GPtrArray *fields;     /* field names seen in instances (interned), first-seen order */
    GHashTable *field_set; /* name -> count: the most times one instance shows it
                              (or a subclass needs it to have: push_shadowed) */
    GArray *statics;       /* hf_hstatic */
} tclass;

struct hproftxt_hscan {
    hproftxt_dump *t;
    uint32_t snap;          /* heap snapshot being filled */
    GHashTable *classes;    /* class id -> tclass * (this heap dump) */
    char cur;               /* record the sub-lines belong to: 'O', 'C' or 0 */
    uint64_t cur_class;     /* OBJ: its class id; CLS: its id */
    GHashTable *seen;       /* OBJ: its field names so far (interned) -> times */
    GString *scratch;       /* a sub-line's name, NUL-terminated for lookups */
};

static void tclass_free(gpointer p)
{
    tclass *c = p;
    g_ptr_array_free(c->fields, TRUE);
    g_hash_table_destroy(c->field_set);
    g_array_free(c->statics, TRUE);
    g_free(c);
}

static tclass *tclass_get(hproftxt_hscan *hs, uint64_t id)
{
    tclass *c = g_hash_table_lookup(hs->classes, GSIZE_TO_POINTER(id));
    if (!c) {
        c = g_new0(tclass, 1);
        c->id = id;
        c->fields = g_ptr_array_new();
        c->field_set = g_hash_table_new(g_str_hash, g_str_equal);
        c->statics = g_array_new(FALSE, FALSE, sizeof(hf_hstatic));
        g_hash_table_insert(hs->classes, GSIZE_TO_POINTER(id), c);
    }
    return c;
}

/* The size the agent states for the object at loc (see the top). */
static bool stated_size(const hf_heap *h, uint64_t loc, uint64_t *size)
{
    rec r;
    if (!read_rec(h, loc, &r))
        return false;
    *size = r.kind == 'C' ? 0 : r.size;
    return true;
}

hproftxt_hscan *hproftxt_hscan_new(hproftxt_dump *t)
{
    hproftxt_hscan *hs = g_new0(hproftxt_hscan, 1);
    hs->t = t;
    hs->seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    hs->scratch = g_string_new(NULL);
    t->heap.stated_size = stated_size;
    return hs;
}

static hf_hsnap *hsnap(hproftxt_hscan *hs)
{
    return &g_array_index(hs->t->heap.snaps, hf_hsnap, hs->snap);
}

void hproftxt_hscan_begin(hproftxt_hscan *hs, uint32_t snap)
{
    hf_heap *h = &hs->t->heap;
    while (h->snaps->len <= snap)
        hf_heap_add_snap(h);
    hs->snap = snap;
    hs->classes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, tclass_free);
    hs->cur = 0;
}

static void add_root(hproftxt_hscan *hs, const char *s, const char *e, uint64_t off, uint32_t no)
{
    /* "ROOT 5000328b (kind=<JNI global ref>, id=1, trace=300000)" */
    static const struct { const char *k; uint8_t kind; } kinds[] = {
        {"<JNI global ref>", HF_ROOT_JNI_GLOBAL}, {"<JNI local ref>", HF_ROOT_JNI_LOCAL},
        {"<Java stack>", HF_ROOT_JAVA_FRAME},     {"<native stack>", HF_ROOT_NATIVE_STACK},
        {"<system class>", HF_ROOT_STICKY_CLASS}, {"<thread block>", HF_ROOT_THREAD_BLOCK},
        {"<busy monitor>", HF_ROOT_MONITOR_USED}, {"<thread>", HF_ROOT_THREAD_OBJECT},
        {"<unknown>", HF_ROOT_UNKNOWN},
    };
    size_t n;
    const char *k = field(s, e, "kind=", &n);
    hf_hroot r = {.id = hex(s + 5, e), .frame = UINT32_MAX, .kind = HF_ROOT_UNKNOWN};
    bool known = false;
    for (size_t i = 0; k && i < G_N_ELEMENTS(kinds); i++)
        if (strlen(kinds[i].k) == n && memcmp(kinds[i].k, k, n) == 0) {
            r.kind = kinds[i].kind;
            known = true;
        }
    if (!known)
        hf_problem(&hs->t->heap.base, off, "line %u: ROOT of an unknown kind: kept as unknown",
                   no);
    const char *v;
    if ((v = field(s, e, "thread=", &n)))
        r.thread = (uint32_t)dec(v, v + n);
    if ((v = field(s, e, "frame=", &n)))
        r.frame = (uint32_t)dec(v, v + n);
    if ((v = field(s, e, "id=", &n))) {
        if (r.kind == HF_ROOT_THREAD_OBJECT) {
            r.thread = (uint32_t)dec(v, v + n);
            if ((v = field(s, e, "trace=", &n)))
                r.extra = dec(v, v + n);
        } else {
            r.extra = hex(v, v + n); /* the JNI global ref id */
        }
    }
    g_array_append_val(hsnap(hs)->roots, r);
}

/* Raises c's count of field `in` (interned) to at least k. */
static void raise_count(tclass *c, const char *in, unsigned k)
{
    unsigned n = GPOINTER_TO_UINT(g_hash_table_lookup(c->field_set, in));
    if (!n)
        g_ptr_array_add(c->fields, (gpointer)in);
    if (k > n)
        g_hash_table_insert(c->field_set, (gpointer)in, GUINT_TO_POINTER(k));
}

/* A reference line "\tname\t\tID" of an instance of c: counted per
 * object, so a name shown twice (a shadowed field) is two fields.  Each
 * name is interned once per class. */
static void field_seen(hproftxt_hscan *hs, tclass *c, const char *name, size_t nl)
{
    g_string_truncate(hs->scratch, 0);
    g_string_append_len(hs->scratch, name, (gssize)nl);
    gpointer key;
    const char *in;
    if (g_hash_table_lookup_extended(c->field_set, hs->scratch->str, &key, NULL))
        in = key;
    else
        in = hf_heap_intern(&hs->t->heap, name, nl);
    unsigned k = GPOINTER_TO_UINT(g_hash_table_lookup(hs->seen, in)) + 1;
    g_hash_table_insert(hs->seen, (gpointer)in, GUINT_TO_POINTER(k));
    raise_count(c, in, k);
}

/* A sub-line of the current OBJ or CLS record. */
static void sub_line(hproftxt_hscan *hs, const char *name, size_t nl, uint64_t id)
{
    hf_heap *h = &hs->t->heap;
    tclass *c = tclass_get(hs, hs->cur_class);
    if (hs->cur == 'O') {
        field_seen(hs, c, name, nl);
    } else if (nl == 5 && memcmp(name, "super", 5) == 0) {
        c->super_id = id;
    } else if (nl == 6 && memcmp(name, "loader", 6) == 0) {
        c->loader_id = id;
    } else if (nl > 7 && memcmp(name, "static ", 7) == 0) {
        hf_hstatic st = {hf_heap_intern(h, name + 7, nl - 7), id, HF_T_OBJECT};
        g_array_append_val(c->statics, st);
    } /* constant pool entries, signers, domain: not shown */
}

void hproftxt_hscan_line(hproftxt_hscan *hs, const char *s, size_t len, uint64_t off, uint32_t no)
{
    const char *e = s + len;
    hf_heap *h = &hs->t->heap;
    if (len && s[0] == '\t') {
        const char *name;
        size_t nl;
        uint64_t id;
        if (hs->cur && hproftxt_sub_line(s, len, &name, &nl, &id))
            sub_line(hs, name, nl, id);
        return; /* else element lines of arrays, or something unreadable */
    }
    hs->cur = 0;
    if (g_hash_table_size(hs->seen))
        g_hash_table_remove_all(hs->seen); /* a new record */
    if (len > 5 && memcmp(s, "ROOT ", 5) == 0) {
        add_root(hs, s, e, off, no);
        return;
    }
    rec r;
    if (!read_rec(h, off, &r)) {
        if (len > 4 && (memcmp(s, "OBJ ", 4) == 0 || memcmp(s, "ARR ", 4) == 0 ||
                        memcmp(s, "CLS ", 4) == 0))
            hf_problem(&h->base, off, "line %u: heap record unreadable: skipped", no);
        return;
    }
    if (off >= (UINT64_C(1) << 40)) {
        hf_problem(&h->base, off, "line %u: beyond 1 TiB into the file: not indexed", no);
        return;
    }
    hf_heap_add_object(hsnap(hs), r.id, off, r.kind == 'C');
    if (r.kind == 'C') {
        tclass *c = tclass_get(hs, r.id);
        c->name = hf_heap_intern(h, r.name, r.name_len);
        c->trace = r.trace;
        hs->cur = 'C';
        hs->cur_class = r.id;
    } else if (r.kind == 'O') {
        tclass *c = tclass_get(hs, r.class_id);
        if (!c->inst_size && r.size <= UINT32_MAX)
            c->inst_size = (uint32_t)r.size;
        hs->cur = 'O';
        hs->cur_class = r.class_id;
    }
}

/* The super class of c when the dump defines it (a CLS line), else NULL. */
static tclass *super_of(hproftxt_hscan *hs, const tclass *c)
{
    tclass *a = c->super_id ? g_hash_table_lookup(hs->classes, GSIZE_TO_POINTER(c->super_id))
                            : NULL;
    return a && a->name ? a : NULL;
}

/* How many fields named `name` c's ancestors have (the most any shows). */
static unsigned inherited(hproftxt_hscan *hs, const tclass *c, const char *name)
{
    unsigned m = 0;
    const tclass *a = c;
    for (int depth = 0; depth < 256 && (a = super_of(hs, a)); depth++)
        m = MAX(m, GPOINTER_TO_UINT(g_hash_table_lookup(a->field_set, name)));
    return m;
}

/* A name c's instances show k > 1 times is k fields on its chain, one per
 * class at most: the super class has k - 1 of them, its super k - 2, ...
 * (as far as the dump defines the chain; the rest stay on the last class). */
static void push_shadowed(hproftxt_hscan *hs, tclass *c)
{
    GPtrArray *names = g_ptr_array_new(); /* c's repeated names, collected first:
                                             a looping chain may lead back to c */
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, c->field_set);
    while (g_hash_table_iter_next(&it, &key, &val))
        if (GPOINTER_TO_UINT(val) > 1)
            g_ptr_array_add(names, key);
    for (guint i = 0; i < names->len; i++) {
        const char *n = g_ptr_array_index(names, i);
        unsigned k = GPOINTER_TO_UINT(g_hash_table_lookup(c->field_set, n));
        tclass *a = c;
        for (int depth = 0; depth < 256 && --k > 0 && (a = super_of(hs, a)); depth++) {
            gpointer in;
            if (!g_hash_table_lookup_extended(a->field_set, n, &in, NULL))
                in = (gpointer)n;
            raise_count(a, in, k);
        }
    }
    g_ptr_array_free(names, TRUE);
}

/* c's declared fields, in first-seen order: as many of each name as its
 * count exceeds its ancestors' (one, unless the dump lacks the super class
 * that declares the others). */
static void declared(hproftxt_hscan *hs, const tclass *c, GArray *decl)
{
    g_array_set_size(decl, 0);
    for (guint i = 0; i < c->fields->len; i++) {
        const char *n = g_ptr_array_index(c->fields, i);
        unsigned k = GPOINTER_TO_UINT(g_hash_table_lookup(c->field_set, n));
        for (unsigned j = inherited(hs, c, n); j < k; j++) {
            hf_hfield f = {.name = n, .type = HF_T_OBJECT};
            g_array_append_val(decl, f);
        }
    }
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Classes of the finished heap dump go to the layer. */
void hproftxt_hscan_end(hproftxt_hscan *hs)
{
    hf_heap *h = &hs->t->heap;
    if (!hs->classes)
        return;
    GHashTableIter it;
    gpointer key, val;
    GArray *decl = g_array_new(FALSE, TRUE, sizeof(hf_hfield));
    /* In id order, so the result does not depend on hash order. */
    g_hash_table_iter_init(&it, hs->classes);
    GArray *order = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    while (g_hash_table_iter_next(&it, &key, &val))
        if (((tclass *)val)->name) /* only classes the dump has a CLS line for */
            g_array_append_val(order, ((tclass *)val)->id);
    g_array_sort(order, cmp_u64);
    for (guint i = 0; i < order->len; i++)
        push_shadowed(hs, g_hash_table_lookup(hs->classes, GSIZE_TO_POINTER(
                                                  g_array_index(order, uint64_t, i))));
    for (guint i = 0; i < order->len; i++) {
        tclass *c = g_hash_table_lookup(hs->classes,
                                        GSIZE_TO_POINTER(g_array_index(order, uint64_t, i)));
        declared(hs, c, decl);
        hf_hclass k = {0};
        k.id = c->id;
        k.name = c->name;
        k.super_id = c->super_id;
        k.loader_id = c->loader_id;
        k.trace = c->trace;
        k.inst_size = c->inst_size;
        k.decl = (hf_hfield *)decl->data;
        k.n_decl = decl->len;
        k.statics = (hf_hstatic *)c->statics->data;
        k.n_statics = c->statics->len;
        hf_heap_add_class(h, hsnap(hs), &k);
    }
    g_array_free(order, TRUE);
    g_array_free(decl, TRUE);
    g_hash_table_destroy(hs->classes);
    hs->classes = NULL;
    hs->cur = 0;
}

/* After hf_heap_finish: a class's instance size is its instances' sz=
 * (their bytes came from their own lines already). */
static void stated_instance_sizes(hf_heap *h)
{
    for (guint s = 0; s < h->snaps->len; s++) {
        hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        for (guint i = 0; i < sn->classes->len; i++) {
            hf_hclass *c = &g_array_index(sn->classes, hf_hclass, i);
            if (c->inst_size && !c->elem && !c->synthetic)
                c->shallow = c->inst_size;
        }
    }
}

void hproftxt_hscan_finish(hproftxt_hscan *hs, uint32_t n_snaps)
{
    hf_heap *h = &hs->t->heap;
    hproftxt_hscan_end(hs);
    while (h->snaps->len < n_snaps)
        hf_heap_add_snap(h);
    hf_heap_finish(h);
    stated_instance_sizes(h);
    g_hash_table_destroy(hs->seen);
    g_string_free(hs->scratch, TRUE);
    g_free(hs);
}
