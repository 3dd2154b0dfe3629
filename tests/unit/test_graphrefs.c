/* Unit tests for decoders/heap/graphrefs.c: the references it reads from
 * the dump are the reference walker's (hf_heap_for_each_ref_of), in its
 * order, with its slots, for every object of the corpus's HPROF dumps and
 * of hand-built ones (a class chain, instances shorter than their class,
 * 4- and 8-byte ids).  Run from the project root. */
#include <string.h>

#include "tests/unit/helpers.h"
#include "tests/unit/hprofbld.h"

#include "decoders/core/search.h"
#include "decoders/heap/graph.h"
#include "decoders/heap/graphrefs.h"

typedef struct {
    GArray *target, *slot;
} walked;

static bool collect(uint64_t target, uint32_t slot, void *ud)
{
    walked *w = ud;
    g_array_append_val(w->target, target);
    g_array_append_val(w->slot, slot);
    return true;
}

/* What hf_reftab_read gives for ob leaving out skip, cap at a time. */
static GArray *read_all(const hf_reftab *t, const hf_hobj *ob, uint32_t skip, uint32_t cap)
{
    GArray *got = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    uint64_t buf[8], pos = 0;
    uint32_t k;
    while ((k = hf_reftab_read(t, ob, skip, &pos, buf, cap)))
        g_array_append_vals(got, buf, k);
    return got;
}

/* The walker's targets without the one at slot skip. */
static void assert_same(const walked *w, uint32_t skip, const GArray *got)
{
    guint j = 0;
    for (guint i = 0; i < w->target->len; i++) {
        if (g_array_index(w->slot, uint32_t, i) == skip)
            continue;
        assert_true(j < got->len);
        assert_int_equal(g_array_index(got, uint64_t, j), g_array_index(w->target, uint64_t, i));
        j++;
    }
    assert_int_equal(j, got->len);
}

/* Every object of every snapshot of d; the number read by the table. */
static uint64_t check_dump(hf_dump *d)
{
    const hf_heap *h = (const hf_heap *)d;
    uint64_t fast = 0;
    for (uint32_t s = 0; s < h->snaps->len; s++) {
        const hf_hsnap *sn = hf_heap_snap(h, s);
        hf_reftab t;
        assert_true(hf_reftab_init(&t, h, sn));
        for (uint64_t o = 0; o < sn->n_objects; o++) {
            hf_hobj ob;
            if (!hf_heap_decode(h, sn, o, &ob) || !hf_reftab_fast(&t, &ob))
                continue;
            fast++;
            walked w = {g_array_new(FALSE, FALSE, sizeof(uint64_t)),
                        g_array_new(FALSE, FALSE, sizeof(uint32_t))};
            hf_heap_for_each_ref_of(h, sn, &ob, collect, &w);
            /* all of them, a few at a time (resumed), and without one */
            for (uint32_t cap = 1; cap <= 8; cap += 7) {
                GArray *got = read_all(&t, &ob, HF_NONE, cap);
                assert_same(&w, HF_NONE, got);
                g_array_free(got, TRUE);
            }
            if (ob.kind == HF_K_INSTANCE && w.slot->len) {
                uint32_t skip = g_array_index(w.slot, uint32_t, w.slot->len / 2);
                GArray *got = read_all(&t, &ob, skip, 8);
                assert_same(&w, skip, got);
                g_array_free(got, TRUE);
            }
            g_array_free(w.target, TRUE);
            g_array_free(w.slot, TRUE);
        }
        hf_reftab_free(&t);
    }
    return fast;
}

static void test_corpus(void **state)
{
    static const char *const dumps[] = {
        "leakcanary_leak_service_binder.hprof", "mat_oracle_jdk8_05_x64.hprof",
        "mat_sun_jdk6_18_x64.hprof", "mat_sun_jdk6_31_hprofagent_compressedOops.hprof",
        "slurp_hprof-32.bin", "slurp_hprof-64.bin",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(dumps); i++) {
        char *p = th_corpus("hprof", dumps[i]);
        GError *e = NULL;
        hf_dump *d = hf_open(p, NULL, &e);
        if (!d)
            fail_msg("%s: %s", p, e->message);
        assert_true(check_dump(d) > 0);
        hf_dump_close(d);
        g_free(p);
    }
}

enum { S_OBJECT = 1, S_BASE, S_SUB, S_A, S_B, S_C, S_X, S_ARR };
enum { C_OBJECT = 0x100, C_BASE = 0x200, C_SUB = 0x300, C_ARR = 0x400 };

/* Sub (fields c: Object, x: int) extends Base (a, b: Object); instances
 * whole, cut in the middle of a reference, cut before one, and empty;
 * an Object[] with nulls. */
static GByteArray *chain_file(unsigned idsz)
{
    bld b = start(idsz, "JAVA PROFILE 1.0.2");
    const char *names[] = {NULL, "java/lang/Object", "Base", "Sub", "a", "b", "c", "x",
                           "[Ljava/lang/Object;"};
    for (int i = 1; i <= S_ARR; i++)
        str(&b, (uint64_t)i, names[i]);
    load_class(&b, 1, C_OBJECT, S_OBJECT);
    load_class(&b, 2, C_BASE, S_BASE);
    load_class(&b, 3, C_SUB, S_SUB);
    load_class(&b, 4, C_ARR, S_ARR);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    u1(&b, HPROF_GC_ROOT_UNKNOWN);
    id(&b, 0x1000);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    const uint64_t bf[] = {S_A, HF_T_OBJECT, S_B, HF_T_OBJECT};
    class_dump(&b, C_BASE, C_OBJECT, 2 * idsz, 0, NULL, 2, bf);
    const uint64_t sf[] = {S_C, HF_T_OBJECT, S_X, HF_T_INT};
    class_dump(&b, C_SUB, C_BASE, 3 * idsz + 4, 0, NULL, 2, sf);
    class_dump(&b, C_ARR, C_OBJECT, 0, 0, NULL, 0, NULL);
    bld t = {g_byte_array_new(), idsz, 0};
    id(&t, 0x1100); /* c */
    u4(&t, 7);      /* x */
    id(&t, 0x1200); /* a */
    id(&t, 0);      /* b: null */
    uint32_t cuts[] = {t.b->len, 4 + 2 * idsz - 1, idsz + 4, idsz - 1, 0};
    for (uint32_t i = 0; i < G_N_ELEMENTS(cuts); i++)
        instance(&b, 0x1000 + 0x10 * i, C_SUB, t.b->data, cuts[i]);
    g_byte_array_unref(t.b);
    const uint64_t els[] = {0x1000, 0, 0x1010, 0x9999, 0};
    obj_array(&b, 0x1100, C_ARR, G_N_ELEMENTS(els), els);
    const uint64_t base_ids[] = {0x1100, 0x1000};
    bld u = {g_byte_array_new(), idsz, 0};
    for (int i = 0; i < 2; i++)
        id(&u, base_ids[i]);
    instance(&b, 0x1200, C_BASE, u.b->data, u.b->len);
    g_byte_array_unref(u.b);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

static void test_chain(void **state)
{
    for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
        GByteArray *bytes = chain_file(idsz);
        char *path = th_write_temp(bytes->data, bytes->len);
        GError *e = NULL;
        hf_dump *d = hf_open(path, NULL, &e);
        assert_non_null(d);
        assert_int_equal(check_dump(d), 7); /* 5 Subs, the array, a Base */
        hf_dump_close(d);
        unlink(path);
        g_free(path);
        g_byte_array_free(bytes, TRUE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
