/*
 * test_hproftxt.c - the HPROF agent text output decoder.
 *
 * Every corpus file opens cleanly and passes the internal checks (SITES
 * and CPU rows name TRACEs that exist, CPU sample counts sum to the
 * total, accumulated percentages add up); views are the file's own bytes
 * where they should be; header and format variants (older TRACE lines,
 * CRLF, decimal commas, no comment) parse; broken input is reported, the
 * rest decoded.  google-pprof, when installed, reads heap.pprof with the
 * snapshot's totals.
 */
#include "decoders/hproftxt/hproftxt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

static char *corpus(const char *name)
{
    return th_corpus("hprof-txt", name);
}

static hproftxt_dump *open_path(const char *p)
{
    GError *e = NULL;
    hf_dump *d = hf_open(p, NULL, &e);
    if (!d)
        fail_msg("%s: %s", p, e ? e->message : "?");
    assert_string_equal(d->ops->format, "hprof-text");
    return (hproftxt_dump *)d;
}

static hproftxt_dump *open_corpus(const char *name)
{
    char *p = corpus(name);
    hproftxt_dump *t = open_path(p);
    g_free(p);
    return t;
}

/* ---- the corpus ---- */

static void test_corpus(void **state)
{
    static const struct {
        const char *file;
        unsigned traces, threads, snaps;
        const char *files; /* snapshot 1's files */
        bool heap;         /* a HEAP DUMP: classes/ and objects/ */
    } cases[] = {
        {"JoelStuart_COMP3702A1_sites.java.hprof.txt", 488, 2, 1,
         "info sites sites.agent heap.pprof heap.pb.gz stacks.folded flame.svg tables/sites.tsv ", false},
        {"Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt", 2352, 4, 1,
         "info sites sites.agent histogram roots heap.pprof heap.pb.gz stacks.folded flame.svg "
         "dominators histogram-retained suspects suspects-report unreachable dominators.svg biggest biggest-shallow "
         "dominators-by-class consumers-by-class consumers-by-loader consumers-by-package "
         "tables/objects.tsv tables/references.tsv tables/classes.tsv tables/retained.tsv "
         "tables/sites.tsv ",
         true},
        {"pjstadig_deque-clojure_cpusamples.java.hprof.txt", 173, 2, 1, "info cpu/samples cpu/samples.agent tables/samples.tsv ",
         false},
        {"Kanatoko_libinjection_cputimes.java.hprof.txt", 364, 3, 1, "info cpu/times cpu/times.agent tables/times.tsv ", false},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        hproftxt_dump *t = open_corpus(cases[i].file);
        hf_dump *d = &t->heap.base;
        char *p = th_problems(d);
        assert_string_equal(p, ""); /* every internal check holds */
        g_free(p);
        p = th_info(d);
        assert_true(g_str_has_prefix(p, "format: hprof-text\nformat name: HPROF text (java.hprof.txt)\n"));
        g_free(p);
        assert_int_equal(d->ops->n_traces(d), cases[i].traces);
        assert_int_equal(d->ops->n_threads(d), cases[i].threads);
        assert_int_equal(d->ops->n_snapshots(d), cases[i].snaps);
        char *fl = th_snap_files(d, 0);
        assert_string_equal(fl, cases[i].files);
        g_free(fl);
        /* classes/ and objects/ only with a HEAP DUMP */
        assert_int_equal(d->ops->n_classes(d, 0) > 0, cases[i].heap);
        /* traces ascend; each view renders the same whole or in pieces */
        for (uint64_t k = 1; k < d->ops->n_traces(d); k++)
            assert_true(d->ops->trace_number(d, k - 1) < d->ops->trace_number(d, k));
        const hf_file *files = d->ops->snapshot.files;
        for (uint32_t f = 0; f < th_n_files(files); f++)
            if (th_has_file(d, files, 0, 0, files[f].name))
                g_free(th_render_chunked(d, files[f].render, (hf_view){.file = f}, 200));
        for (uint64_t k = 0; k < d->ops->n_threads(d); k++) {
            char *a = th_thread_file(d, k, "info");
            assert_non_null(strstr(a, "id: "));
            g_free(a);
        }
        hf_dump_close(d);
    }
}

/* Sums of the CPU SAMPLES counts equal the total, SITES rows name existing
 * traces: checked here from the parsed rows, independently of errors. */
static void test_corpus_checks(void **state)
{
    hproftxt_dump *t = open_corpus("pjstadig_deque-clojure_cpusamples.java.hprof.txt");
    hproftxt_snap *sn = &g_array_index(t->snaps, hproftxt_snap, 0);
    uint64_t sum = 0;
    for (guint i = 0; i < sn->samples->len; i++)
        sum += g_array_index(sn->samples, hproftxt_cpu, i).count;
    assert_int_equal(sn->samples->len, 173);
    assert_int_equal(sum, 267);
    assert_int_equal(sn->blk[TB_CPU_SAMPLES].total, 267);
    hf_dump_close(&t->heap.base);

    t = open_corpus("JoelStuart_COMP3702A1_sites.java.hprof.txt");
    sn = &g_array_index(t->snaps, hproftxt_snap, 0);
    assert_int_equal(sn->sites->len, 712);
    for (guint i = 0; i < sn->sites->len; i++)
        assert_true(hproftxt_trace_find(t, g_array_index(sn->sites, hproftxt_site, i).trace) >= 0);
    hproftxt_site *first = &g_array_index(sn->sites, hproftxt_site, 0);
    assert_int_equal(first->live_bytes, 16912);
    assert_int_equal(first->live_objs, 109);
    assert_int_equal(first->trace, 300050);
    assert_string_equal(first->cls, "char[]");
    hf_dump_close(&t->heap.base);

    /* decimal commas (a Swedish locale): all 1092 rows parse */
    t = open_corpus("Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt");
    sn = &g_array_index(t->snaps, hproftxt_snap, 0);
    assert_int_equal(sn->sites->len, 1092);
    assert_true(sn->blk[TB_HEAP].present && sn->blk[TB_HEAP].closed);
    assert_int_equal(sn->blk[TB_HEAP].total, 12938);
    assert_int_equal(sn->blk[TB_HEAP].total2, 1512248);
    hf_dump_close(&t->heap.base);
}

/* traces/N and sites.agent are the file's own bytes; sites has its rows. */
static void test_verbatim(void **state)
{
    char *p = corpus("JoelStuart_COMP3702A1_sites.java.hprof.txt"), *text = NULL;
    assert_true(g_file_get_contents(p, &text, NULL, NULL));
    hproftxt_dump *t = open_path(p);
    hf_dump *d = &t->heap.base;
    int64_t k = hproftxt_trace_find(t, 300003);
    assert_true(k >= 0);
    char *tr = th_trace(d, (uint64_t)k);
    assert_string_equal(tr, "TRACE 300003:\n"
                            "\tjava.lang.String.toCharArray(<Unknown Source>:Unknown line)\n"
                            "\tjava.lang.Thread.init(<Unknown Source>:Unknown line)\n"
                            "\tjava.lang.Thread.init(<Unknown Source>:Unknown line)\n"
                            "\tjava.lang.Thread.<init>(<Unknown Source>:Unknown line)\n");
    g_free(tr);
    char *sites = th_snap_file(d, 0, "sites.agent");
    const char *b = strstr(text, "SITES BEGIN"), *e = strstr(text, "SITES END\n");
    assert_non_null(b);
    assert_non_null(e);
    assert_int_equal(strlen(sites), (size_t)(e + 10 - b));
    assert_memory_equal(sites, b, strlen(sites));
    g_free(sites);
    /* "    1  4.18%  4.18%     16912  109     16912   109 300050 char[]" */
    sites = th_snap_file(d, 0, "sites");
    assert_true(g_str_has_prefix(sites, "# trace\tinuse_objects\tinuse_space\talloc_objects\t"
                                        "alloc_space\tclass\n300050\t109\t16912\t109\t16912\t"
                                        "char[]\n"));
    g_free(sites);
    char *info = th_thread_file(d, 1, "info");
    assert_string_equal(info, "id: 200002\nname: HPROF gc_finish watcher\ngroup: system\n"
                              "object: 0x50000178\nended: no\n");
    g_free(info);
    char name[HF_NAME_MAX];
    d->ops->thread_name(d, 0, name);
    assert_string_equal(name, "200001-main");
    hf_dump_close(d);
    g_free(text);
    g_free(p);
}

static hproftxt_dump *open_text_ext(const char *body, char **file);
static hproftxt_dump *open_text(const char *body, bool with_header, char **file);
static void close_text(hproftxt_dump *t, char *file);

/* ---- the text HEAP DUMP on the heap layer ---- */

static void test_heap_dump(void **state)
{
    hproftxt_dump *t = open_corpus("Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt");
    hf_dump *d = &t->heap.base;
    /* every CLS, OBJ and ARR line is an object; every CLS a class */
    assert_int_equal(d->ops->n_classes(d, 0), 685);
    assert_int_equal(d->ops->n_objects(d, 0), 685 + 10022 + 5933);
    const hf_hsnap *sn = hf_heap_snap(&t->heap, 0);
    assert_int_equal(sn->roots->len, 1558);

    /* OBJ 5000016b (sz=40, trace=300019, class=java.io.ObjectStreamField@5000002f)
     *     name 500032e3, signature 500034e8, type 5000014a */
    int64_t o = d->ops->object_find(d, 0, "0x5000016b");
    assert_true(o >= 0);
    char *info = th_object_file(d, 0, "0x5000016b", "info");
    assert_string_equal(info, "id: 0x5000016b\nclass: java.io.ObjectStreamField\nkind: instance\n"
                              "size: 40\nallocation trace: 300019\n");
    g_free(info);
    char *f = th_object_file(d, 0, "0x5000016b", "fields");
    assert_string_equal(f, "# name\ttype\tvalue\nname\tobject\t0x500032e3\n"
                           "signature\tobject\t0x500034e8\ntype\tobject\t0x5000014a\n");
    g_free(f);
    char name[HF_NAME_MAX];
    hf_target to;
    assert_int_equal(th_ref(d, 0, (uint64_t)o, 1, name, &to), HF_REF_OK);
    assert_string_equal(name, "signature");
    assert_string_equal(to.name, "0x500034e8");
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "type"), 2);
    assert_false(th_object_has(d, 0, "0x5000016b", "value"));

    /* ARR 5000016a (sz=32, trace=300018, nelems=3, elem type=java.io.ObjectStreamField[]@50000030) */
    o = d->ops->object_find(d, 0, "0x5000016a");
    f = th_object_file(d, 0, "0x5000016a", "fields");
    assert_string_equal(f, "# index\tvalue\n0\t0x5000016b\n1\t0x50000170\n2\t0x50000175\n");
    g_free(f);
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "2"), 2);
    assert_int_equal(th_ref_find(d, 0, (uint64_t)o, "3"), -1);
    assert_true(th_object_link(d, 0, "0x5000016a", "class", &to));
    assert_int_equal(to.kind, HF_TO_CLASS);
    int64_t c = d->ops->class_find(d, 0, to.name);
    assert_true(c >= 0);
    d->ops->class_name(d, 0, (uint64_t)c, name);
    assert_string_equal(name, "java.io.ObjectStreamField[]");

    /* classes: super from "\tsuper", statics from "\tstatic NAME" */
    c = d->ops->class_find(d, 0, "java.lang.Throwable");
    assert_true(c >= 0);
    assert_true(th_class_link(d, 0, "java.lang.Throwable", "super", &to));
    assert_int_equal(to.kind, HF_TO_CLASS);
    assert_string_equal(to.name, "java.lang.Object");
    /* every instance of a class has the agent's size */
    c = d->ops->class_find(d, 0, "java.lang.Thread");
    const hf_hclass *k = hf_heap_class(sn, (uint64_t)c);
    assert_int_equal(k->shallow, 112);
    assert_int_equal(k->bytes, k->count * 112);
    /* a String has no value file: the text has no contents */
    char *hist = th_snap_file(d, 0, "histogram");
    assert_non_null(strstr(hist, "\tjava.lang.String\n"));
    g_free(hist);
    assert_int_equal(th_file_index(d->ops->snapshot.files, "strings"), -1);
    hf_dump_close(d);

    /* A HEAP DUMP without SITES: heap.pprof from the live objects. */
    char *file;
    hproftxt_dump *t2 = open_text_ext("TRACE 1:\n\tA.make(A.java:3)\n"
                                      "HEAP DUMP BEGIN (3 objects, 48 bytes) x\n"
                                      "CLS 10 (name=A, trace=1)\n"
                                      "OBJ 20 (sz=16, trace=1, class=A@10)\n\tnext\t\t21\n"
                                      "OBJ 21 (sz=16, trace=1, class=A@10)\n"
                                      "ARR 22 (sz=8, trace=1, nelems=4, elem type=short[])\n"
                                      "HEAP DUMP END\n",
                                      &file);
    assert_non_null(t2);
    char *p = th_problems(&t2->heap.base);
    assert_string_equal(p, "");
    g_free(p);
    char *fold = th_snap_file(&t2->heap.base, 0, "stacks.folded");
    /* the array's size is its sz=; the class object (CLS: no sz=) 0 bytes */
    assert_string_equal(fold, "A.make;A 32\nA.make;short[] 8\n");
    g_free(fold);
    char *f2 = th_object_file(&t2->heap.base, 0, "0x21", "fields");
    assert_string_equal(f2, "# name\ttype\tvalue\nnext\tobject\tnull\n");
    g_free(f2);
    close_text(t2, file);
}

/* Sizes are the agent's sz=, arrays' too (even "nelems=0"); class objects
 * have none and count 0: the histogram adds up to the file's sz= values. */
static void test_stated_sizes(void **state)
{
    char *p = corpus("Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt"), *text = NULL;
    assert_true(g_file_get_contents(p, &text, NULL, NULL));
    uint64_t sum = 0;
    for (const char *q = text; (q = strstr(q, "(sz=")); q += 4)
        sum += g_ascii_strtoull(q + 4, NULL, 10);
    assert_int_equal(sum, 1149543);
    hproftxt_dump *t = open_path(p);
    hf_dump *d = &t->heap.base;
    const hf_hsnap *sn = hf_heap_snap(&t->heap, 0);
    assert_int_equal(sn->total_bytes, sum);
    char *hist = th_snap_file(d, 0, "histogram"), *line = hist;
    uint64_t hsum = 0;
    while ((line = strchr(line, '\n')) && *++line)
        hsum += g_ascii_strtoull(strchr(line, '\t') + 1, NULL, 10); /* "N\tBYTES\tNAME" */
    assert_int_equal(hsum, sum);
    g_free(hist);
    /* ARR 50000153 (sz=56, trace=300003, nelems=0, elem type=char[]) */
    assert_contains(th_object_file(d, 0, "0x50000153", "info"),
                    "kind: primitive array\nsize: 56\nlength: 0");
    /* CLS 500000ab (name=java.lang.Object, trace=300000) */
    assert_contains(th_object_file(d, 0, "0x500000ab", "info"), "kind: class\nsize: 0\n");
    hf_dump_close(d);
    g_free(text);
    g_free(p);
}

/* A field declared in a class and again in its super class shows twice in
 * one OBJ (the super class's line first): both are kept, the farther one
 * named name@Declaring, in fields and refs/ alike (as the binary decoder
 * names them).  Where the dump does not define the super class, both stay
 * on the class, still two names. */
static void test_shadowed_fields(void **state)
{
    static const char *const body[] = {
        "CLS 11 (name=java.net.URLClassLoader, trace=1)\n",
        "CLS 11 (name=java.net.URLClassLoader, trace=1)\n\tsuper\t\t10\n"
        "CLS 10 (name=java.lang.ClassLoader, trace=1)\n",
    };
    static const char *const want[] = {
        "# name\ttype\tvalue\nparent\tobject\t0x21\nucp\tobject\t0x24\n"
        "ucp@sun.misc.Launcher$AppClassLoader\tobject\t0x22\nacc\tobject\t0x23\n",
        "# name\ttype\tvalue\nparent\tobject\t0x21\nucp\tobject\t0x24\nacc\tobject\t0x23\n"
        "ucp@java.net.URLClassLoader\tobject\t0x22\n",
    };
    for (int k = 0; k < 2; k++) {
        char *file, *text = g_strdup_printf(
            "TRACE 1:\n\tA.make(A.java:3)\nHEAP DUMP BEGIN (5 objects, 72 bytes) x\n"
            "CLS 12 (name=sun.misc.Launcher$AppClassLoader, trace=1)\n\tsuper\t\t%s\n%s"
            "CLS 13 (name=java.lang.Object, trace=1)\n"
            "OBJ 20 (sz=72, trace=1, class=sun.misc.Launcher$AppClassLoader@12)\n"
            "\tparent\t\t21\n\tucp\t\t22\n\tacc\t\t23\n\tucp\t\t24\n"
            "OBJ 21 (sz=16, trace=1, class=java.lang.Object@13)\n"
            "HEAP DUMP END\n", k ? "11" : "99", body[k]);
        hproftxt_dump *t = open_text(text, true, &file);
        g_free(text);
        assert_non_null(t);
        hf_dump *d = &t->heap.base;
        char *p = th_problems(d);
        assert_string_equal(p, "");
        g_free(p);
        uint64_t o = (uint64_t)d->ops->object_find(d, 0, "0x20");
        char *f = th_object_file(d, 0, "0x20", "fields");
        assert_string_equal(f, want[k]);
        g_free(f);
        char name[HF_NAME_MAX];
        hf_target to;
        int64_t slot = th_ref_find(d, 0, o, "ucp");
        assert_true(slot >= 0);
        assert_int_equal(th_ref(d, 0, o, (uint32_t)slot, name, &to), HF_REF_OK);
        assert_string_equal(to.name, "0x24");
        uint32_t far = k ? 3 : 2; /* where fields lists the other ucp */
        assert_int_equal(th_ref(d, 0, o, far, name, &to), HF_REF_OK);
        assert_true(g_str_has_prefix(name, "ucp@"));
        assert_string_equal(to.name, "0x22");
        assert_int_equal(th_ref_find(d, 0, o, name), far);
        close_text(t, file);
    }
}

/* CPU SAMPLES rows summing below the total are the agent's cutoff, not a
 * problem; above it, they are. */
static void test_cpu_cutoff(void **state)
{
    char *file;
    hproftxt_dump *t = open_text("TRACE 1:\n\tA.b(A.java:3)\n"
                                 "CPU SAMPLES BEGIN (total = 9) x\n"
                                 "   1 44.44% 44.44% 4 1 A.b\nCPU SAMPLES END\n",
                                 true, &file);
    assert_non_null(t);
    char *p = th_problems(&t->heap.base);
    assert_string_equal(p, "");
    g_free(p);
    close_text(t, file);
}

/* ---- variants and broken input ---- */

static const char header[] = "JAVA PROFILE 1.0.1, created Mon Jan  1 00:00:00 2001\n\n"
                             "This file contains the following types of records:\n\n"
                             "THREAD START\nTRACE           represents a Java stack trace.\n"
                             "HEAP DUMP       is a complete snapshot\n\n--------\n\n";

static hproftxt_dump *open_text(const char *body, bool with_header, char **file)
{
    GString *s = g_string_new(with_header ? header : "JAVA PROFILE 1.0.1, created x\n");
    g_string_append(s, body);
    *file = th_write_temp(s->str, s->len);
    g_string_free(s, TRUE);
    GError *e = NULL;
    hf_dump *d = hf_open(*file, NULL, &e);
    g_clear_error(&e);
    return (hproftxt_dump *)d;
}

static hproftxt_dump *open_text_ext(const char *body, char **file)
{
    return open_text(body, true, file);
}

static void close_text(hproftxt_dump *t, char *file)
{
    if (t)
        hf_dump_close(&t->heap.base);
    unlink(file);
    g_free(file);
}

static void test_variants(void **state)
{
    char *file;
    /* Older agents: "TRACE N: (thread=M)", CRLF line ends, no comment. */
    hproftxt_dump *t = open_text("THREAD START (obj=1a, id = 7, name=\"main\", group=\"main\")\r\n"
                                 "TRACE 1: (thread=7)\r\n\tA.b(A.java:3)\r\n\tA.main(A.java:9)\r\n"
                                 "TRACE 2: (thread=7)\r\n\t<empty>\r\n"
                                 "SITES BEGIN (ordered by live bytes) Mon Jan  1 00:00:01 2001\r\n"
                                 "          percent         live       alloc'ed  stack class\r\n"
                                 " rank   self  accum    bytes objs   bytes objs trace name\r\n"
                                 "    1 75.00% 75.00%      300    3     600    6     1 A\r\n"
                                 "    2 25.00% 100.00%     100    1     100    1     2 int[]\r\n"
                                 "SITES END\r\n"
                                 "CPU SAMPLES BEGIN (total = 5) Mon Jan  1 00:00:01 2001\r\n"
                                 "rank   self  accum   count trace method\r\n"
                                 "   1 80.00% 80.00%       4     1 A.b\r\n"
                                 "   2 20.00% 100.00%      1     2 A.main\r\n"
                                 "CPU SAMPLES END\r\n",
                                 false, &file);
    assert_non_null(t);
    char *p = th_problems(&t->heap.base);
    assert_string_equal(p, "");
    g_free(p);
    assert_int_equal(t->traces->len, 2);
    assert_int_equal(g_array_index(t->traces, hproftxt_trace, 0).thread, 7);
    assert_int_equal(g_array_index(t->traces, hproftxt_trace, 0).n_frames, 2);
    assert_int_equal(g_array_index(t->traces, hproftxt_trace, 1).n_frames, 0);
    char *pp = th_snap_file(&t->heap.base, 0, "heap.pprof");
    assert_non_null(strstr(pp, "heap profile:      4:      400 [     7:      700] @ heapprofile\n"));
    assert_non_null(strstr(pp, " A.b(A.java:3)\n"));
    g_free(pp);
    char *fold = th_snap_file(&t->heap.base, 0, "stacks.folded");
    assert_string_equal(fold, "A.main;A.b;A 300\nint[] 100\n");
    g_free(fold);
    close_text(t, file);

    /* Two sets of blocks (a dump on Ctrl-\ and one at exit): two snapshots. */
    t = open_text("TRACE 1:\n\tA.b(A.java:3)\n"
                  "CPU SAMPLES BEGIN (total = 1) x\n   1 100.00% 100.00% 1 1 A.b\nCPU SAMPLES END\n"
                  "CPU SAMPLES BEGIN (total = 3) y\n   1 100.00% 100.00% 3 1 A.b\nCPU SAMPLES END\n",
                  true, &file);
    assert_non_null(t);
    assert_int_equal(t->snaps->len, 2);
    char *c2 = th_snap_file(&t->heap.base, 1, "cpu/samples.agent");
    assert_true(g_str_has_prefix(c2, "CPU SAMPLES BEGIN (total = 3) y\n"));
    g_free(c2);
    c2 = th_snap_file(&t->heap.base, 1, "cpu/samples");
    assert_string_equal(c2, "# trace\tcount\tpercent\tmethod\n1\t3\t100.00\tA.b\n");
    g_free(c2);
    close_text(t, file);
}

static void test_broken(void **state)
{
    char *file;
    hproftxt_dump *t = open_text("THREAD END (id = 99)\n"
                                 "TRACE 1:\n\tA.b(A.java:3)\n"
                                 "what is this\n"
                                 "SITES BEGIN (ordered by live bytes) x\n"
                                 "    1 50.00% 50.00%  100 1 100 1 1 A\n"
                                 "    2 50.00% 100.00% 100 1 100 1 42 B\n"
                                 "    3 oops\n"
                                 "SITES END\n"
                                 "CPU SAMPLES BEGIN (total = 7) x\n"
                                 "   1 50.00% 50.00% 4 1 A.b\n"
                                 "   2 50.00% 90.00% 4 1 A.b\n"
                                 "TRACE 2:\n\tC.d(C.java:1)\n"
                                 "HEAP DUMP BEGIN (1 objects, 16 bytes) x\n"
                                 "OBJ 5 (sz=16, trace=1, class=A@9)\n",
                                 true, &file);
    assert_non_null(t);
    char *p = th_problems(&t->heap.base);
    assert_non_null(strstr(p, "THREAD END for a thread never started"));
    assert_non_null(strstr(p, "unrecognized line: ignored"));
    assert_non_null(strstr(p, "malformed SITES row: skipped"));
    assert_non_null(strstr(p, "names TRACE 42, which the file does not have"));
    assert_non_null(strstr(p, "CPU SAMPLES block has no END line: it ends here"));
    assert_non_null(strstr(p, "accumulated percentage 90.00% is not 50.00% + 50.00%"));
    assert_non_null(strstr(p, "CPU SAMPLES counts sum to 8, above the total 7"));
    assert_non_null(strstr(p, "HEAP DUMP block has no END line (file truncated?)"));
    g_free(p);
    /* the rest decoded */
    assert_int_equal(t->traces->len, 2);
    hproftxt_snap *sn = &g_array_index(t->snaps, hproftxt_snap, 0);
    assert_int_equal(sn->sites->len, 2);
    assert_int_equal(sn->samples->len, 2);
    assert_true(sn->blk[TB_HEAP].present);
    assert_false(sn->blk[TB_HEAP].closed);
    char *info = th_snap_file(&t->heap.base, 0, "info");
    assert_non_null(strstr(info, "(no END line)"));
    g_free(info);
    close_text(t, file);

    /* Only a header: nothing to show, refused with one line. */
    t = open_text("", true, &file);
    assert_null(t);
    close_text(t, file);
}

static void test_detect(void **state)
{
    /* binary HPROF: the version string ends with a NUL, not a newline */
    static const char bin[] = "JAVA PROFILE 1.0.2\0\0\0\0\x08";
    char *file = th_write_temp(bin, sizeof bin);
    GError *e = NULL;
    hf_dump *d = hf_open(file, NULL, &e);
    if (d) {
        assert_string_not_equal(d->ops->format, "hprof-text");
        hf_dump_close(d);
    }
    g_clear_error(&e);
    unlink(file);
    g_free(file);
}

/* Every prefix of a real file opens or is refused cleanly, and renders. */
static void test_truncations(void **state)
{
    char *p = corpus("pjstadig_deque-clojure_cpusamples.java.hprof.txt"), *text = NULL;
    size_t len = 0;
    assert_true(g_file_get_contents(p, &text, &len, NULL));
    for (size_t cut = 1; cut < len; cut += 1543) {
        char *file = th_write_temp(text, cut);
        GError *e = NULL;
        hf_dump *d = hf_open(file, NULL, &e);
        if (d) {
            th_render_everything(d, 100);
            hf_dump_close(d);
        }
        g_clear_error(&e);
        unlink(file);
        g_free(file);
    }
    g_free(text);
    g_free(p);
}

/* ---- google-pprof reads heap.pprof with the snapshot's totals ---- */

static void test_google_pprof(void **state)
{
    if (access("/usr/bin/google-pprof", X_OK) != 0) {
        print_message("google-pprof not installed (package google-perftools): skipped\n");
        skip();
    }
    static const char *const files[] = {"JoelStuart_COMP3702A1_sites.java.hprof.txt",
                                        "Magnulas_ADKLabb3_heapdump_sites.java.hprof.txt"};
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        hproftxt_dump *t = open_corpus(files[i]);
        char *pp = th_snap_file(&t->heap.base, 0, "heap.pprof");
        char *tmp = th_write_temp(pp, strlen(pp));
        char *info = th_snap_file(&t->heap.base, 0, "info");
        const char *opts[4][2] = {{"--inuse_objects", NULL},
                                  {"--show_bytes", "--inuse_space"},
                                  {"--alloc_objects", NULL},
                                  {"--show_bytes", "--alloc_space"}};
        const char *keys[4] = {"live objects: ", "live bytes: ", "allocated objects: ",
                               "allocated bytes: "};
        for (int k = 0; k < 4; k++) {
            const char *argv[] = {"/usr/bin/google-pprof", "--text", opts[k][0],
                                  opts[k][1] ? opts[k][1] : tmp, opts[k][1] ? tmp : NULL, NULL};
            char *out = NULL;
            gint status;
            assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                     NULL, &out, NULL, &status, NULL));
            const char *v = strstr(info, keys[k]);
            assert_non_null(v);
            char *want = g_strdup_printf("Total: %" G_GUINT64_FORMAT " %s\n",
                                         g_ascii_strtoull(v + strlen(keys[k]), NULL, 10),
                                         k % 2 ? "B" : "objects");
            assert_true(g_str_has_prefix(out, want));
            g_free(want);
            g_free(out);
        }
        g_free(info);
        unlink(tmp);
        g_free(tmp);
        g_free(pp);
        hf_dump_close(&t->heap.base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_corpus_checks),
        cmocka_unit_test(test_verbatim),
        cmocka_unit_test(test_heap_dump),
        cmocka_unit_test(test_stated_sizes),
        cmocka_unit_test(test_shadowed_fields),
        cmocka_unit_test(test_cpu_cutoff),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_google_pprof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
