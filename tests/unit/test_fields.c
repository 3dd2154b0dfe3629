/*
 * test_fields.c - decoders/heap/fields.c: the instance fields of every
 * class of the corpus's HPROF and BMD dumps, walked up the chain, against
 * what a class's fields are by definition:
 *   - the walk gives n_fields fields, n_refs of them references, at
 *     ascending offsets that stay inside data_size;
 *   - hf_hfield_at(i) and a walk sought to i give the walk's field i;
 *   - a field's refs/ name is name@Declaring exactly when a field before it
 *     in the walk has its name (checked by comparing names pairwise), and
 *     hf_hfield_refname gives the walk's name;
 *   - the references hf_heap_for_each_ref_of reports for an instance are
 *     its reference fields read one by one.
 * Run from the project root (the corpus is tests/corpus).
 */
#include "tests/unit/helpers.h"

#include "decoders/heap/fields.h"

#include <stdio.h>

#define PAIRWISE_MAX 2000 /* fields compared pairwise per class */

typedef struct {
    uint64_t classes, fields, shadowed, objects;
} tally;

static void check_class(const hf_hsnap *sn, const hf_hclass *c, unsigned id_size, tally *t)
{
    hf_hfields it, at;
    hf_hfields_begin(&it, sn, c);
    hf_hfields_begin(&at, sn, c);
    const char **names = g_new0(const char *, c->n_fields + 1);
    uint32_t n = 0, refs = 0, last = 0;
    while (hf_hfields_next(&it)) {
        assert_int_equal(it.index, n);
        assert_true(n == 0 || it.offset >= last);
        last = it.offset;
        assert_true((uint64_t)it.offset + hf_btype_size(it.f->type, id_size) <= c->data_size);
        refs += it.f->type == HF_T_OBJECT;
        if (it.f->type == HF_T_OBJECT)
            assert_int_equal(it.ref, refs - 1);
        uint32_t off = UINT32_MAX;
        assert_ptr_equal(hf_hfield_at(sn, c, n, &off), it.f);
        assert_int_equal(off, it.offset);
        hf_hfields_seek(&at, n);
        assert_true(hf_hfields_next(&at));
        assert_ptr_equal(at.f, it.f);
        assert_int_equal(at.offset, it.offset);
        assert_int_equal(at.ref, it.ref);
        names[n] = it.f->name;
        const char *rn = hf_hfields_refname(&it);
        char one[HF_NAME_MAX];
        assert_true(hf_hfield_refname(sn, c, n, one));
        assert_string_equal(one, rn);
        if (n < PAIRWISE_MAX) {
            bool before = false;
            for (uint32_t j = 0; j < n && !before; j++)
                before = strcmp(names[j], it.f->name) == 0;
            const hf_hclass *dc = hf_heap_class(sn, it.f->decl);
            char *q = g_strdup_printf("%s@%s", it.f->name, dc->name);
            if (before)
                assert_true(strcmp(rn, q) == 0 || strchr(rn, '%') || strchr(rn, '~'));
            else
                assert_true(strcmp(rn, it.f->name) == 0 || strchr(rn, '%') || strchr(rn, '~'));
            g_free(q);
            t->shadowed += before;
        }
        n++;
    }
    assert_int_equal(n, c->n_fields);
    assert_int_equal(refs, c->n_refs);
    assert_null(hf_hfield_at(sn, c, n, &last));
    hf_hfields_end(&it);
    hf_hfields_end(&at);
    g_free(names);
    t->classes++;
    t->fields += n;
}

typedef struct {
    uint64_t v[64];
    uint32_t slot[64];
    uint32_t n;
} seen_refs;

static bool note_ref(uint64_t target, uint32_t slot, void *ud)
{
    seen_refs *s = ud;
    if (s->n < 64) {
        s->v[s->n] = target;
        s->slot[s->n] = slot;
    }
    s->n++;
    return true;
}

/* The instance's references, reported, against its fields read one by one. */
static void check_refs(const hf_heap *h, const hf_hsnap *sn, uint64_t o, tally *t)
{
    hf_hobj ob;
    if (!hf_heap_decode(h, sn, o, &ob) || ob.kind != HF_K_INSTANCE)
        return;
    seen_refs s = {.n = 0};
    hf_heap_for_each_ref_of(h, sn, &ob, note_ref, &s);
    hf_hfields it;
    hf_hfields_begin(&it, sn, hf_heap_class(sn, ob.cls));
    uint32_t k = 0;
    uint64_t v;
    while (hf_hfields_next(&it))
        if (it.f->type == HF_T_OBJECT && hf_heap_field(h, sn, &ob, it.index, &v) && v) {
            if (k < 64 && k < s.n) {
                assert_int_equal(s.v[k], v);
                assert_int_equal(s.slot[k], it.ref);
            }
            k++;
        }
    hf_hfields_end(&it);
    assert_int_equal(k, s.n);
    t->objects++;
}

static void check_dump(const char *sub, const char *name, tally *t)
{
    char *path = th_corpus(sub, name);
    GError *e = NULL;
    hf_dump *d = hf_open(path, NULL, &e);
    if (!d)
        fail_msg("%s: %s", path, e->message);
    const hf_heap *h = (const hf_heap *)d; /* the heap decoders embed it first */
    for (guint s = 0; s < h->snaps->len; s++) {
        const hf_hsnap *sn = &g_array_index(h->snaps, hf_hsnap, s);
        for (guint c = 0; c < sn->classes->len; c++)
            check_class(sn, hf_heap_class(sn, c), h->id_size, t);
        for (uint64_t o = 0; o < sn->n_objects; o += 97)
            check_refs(h, sn, o, t);
    }
    hf_dump_close(d);
    g_free(path);
}

static void test_corpus(void **state)
{
    tally t = {0};
    const char *hprof[] = {"mat_oracle_jdk8_05_x64.hprof", "mat_sun_jdk6_18_x64.hprof",
                           "leakcanary_leak_service_binder.hprof", "slurp_hprof-64.bin"};
    for (size_t i = 0; i < G_N_ELEMENTS(hprof); i++)
        check_dump("hprof", hprof[i], &t);
    GDir *dir = g_dir_open("tests/corpus/bmd", 0, NULL);
    const char *n;
    while (dir && (n = g_dir_read_name(dir)))
        if (!g_str_has_suffix(n, ".md"))
            check_dump("bmd", n, &t);
    if (dir)
        g_dir_close(dir);
    printf("# %" G_GUINT64_FORMAT " classes, %" G_GUINT64_FORMAT " fields (%" G_GUINT64_FORMAT
           " shadowed), %" G_GUINT64_FORMAT " instances\n",
           (guint64)t.classes, (guint64)t.fields, (guint64)t.shadowed, (guint64)t.objects);
    assert_true(t.shadowed > 0);
    assert_true(t.objects > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
