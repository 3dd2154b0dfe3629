/*
 * flame_bench - times flame.svg and flame-diff.svg (decoders/pprof/flame.c)
 * on a generated profile.
 *
 *   make build/rel/libheapfs.a
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -g -I. $(pkg-config --cflags glib-2.0) \
 *       -o flame_bench bench/flame_bench.c build/rel/libheapfs.a \
 *       $(pkg-config --libs glib-2.0 libdw libprotobuf-c zlib) -lm
 *   ./flame_bench [stacks] [runs]
 *
 * stacks (default 10,000) distinct stacks 8 to 40 frames deep, built as a
 * program's are: each stack shares a prefix with an earlier one and then
 * goes its own way, frame names drawn from 3,000 Java-like method names
 * with a heavy tail of byte counts.  Prints the median time of the runs,
 * the SVG's size and frame count; then the same for flame-diff.svg of the
 * profile against an earlier one: the same stacks, a tenth of them left
 * out and the others' bytes scaled by 0.5 to 1.5.
 */
#include "decoders/pprof/flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void time_render(const hf_pprof *p, const hf_pprof *before, int runs);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000, runs = argc > 2 ? atoi(argv[2]) : 5;
    GRand *r = g_rand_new_with_seed(42);
    enum { NAMES = 3000, MAXD = 40 };
    char **names = g_new(char *, NAMES);
    for (int i = 0; i < NAMES; i++)
        names[i] = g_strdup_printf("com.example.pkg%d.Class%d.method%d(Class%d.java:%d)", i % 37,
                                   i % 211, i, i % 211, 10 + i % 900);
    hf_pprof *p = hf_pprof_new("bench");
    int *stacks = g_new(int, (size_t)n * MAXD), *depth = g_new(int, n);
    for (int s = 0; s < n; s++) {
        depth[s] = g_rand_int_range(r, 8, MAXD + 1);
        int from = s ? g_rand_int_range(r, 0, s) : 0;
        int share = s ? g_rand_int_range(r, 0, MIN(depth[s], depth[from]) + 1) : 0;
        for (int k = 0; k < depth[s]; k++)
            stacks[s * MAXD + k] = k < share ? stacks[from * MAXD + k] : g_rand_int_range(r, 0, NAMES);
        const char *fr[MAXD];
        for (int k = 0; k < depth[s]; k++) /* leaf first */
            fr[depth[s] - 1 - k] = names[stacks[s * MAXD + k]];
        uint64_t bytes = (uint64_t)(1000.0 / (0.001 + g_rand_double(r))); /* heavy tail */
        hf_pprof_values v = {1, bytes, 1, bytes};
        hf_pprof_add(p, fr, (size_t)depth[s], &v);
    }
    hf_pprof *before = hf_pprof_new("bench");
    for (size_t s = 0; s < hf_pprof_n_stacks(p); s++) {
        const uint32_t *fi;
        size_t nf;
        hf_pprof_values v;
        hf_pprof_sample(p, s, &fi, &nf, &v);
        if (g_rand_int_range(r, 0, 10) == 0)
            continue;
        const char *fr[MAXD];
        for (size_t k = 0; k < nf; k++)
            fr[k] = hf_pprof_frame(p, fi[k]);
        v.inuse_bytes = (uint64_t)((double)v.inuse_bytes * g_rand_double_range(r, 0.5, 1.5));
        hf_pprof_add(before, fr, nf, &v);
    }
    time_render(p, NULL, runs);
    time_render(p, before, runs);
    return 0;
}

/* Prints the median time of `runs` renders of flame.svg of p (with
 * before: flame-diff.svg against it), its size and frames. */
static void time_render(const hf_pprof *p, const hf_pprof *before, int runs)
{
    double *t = g_new(double, runs);
    size_t size = 0, frames = 0;
    for (int i = 0; i < runs; i++) {
        GString *out = g_string_new(NULL);
        gint64 t0 = g_get_monotonic_time();
        if (before)
            hf_flame_render_diff(p, before, HF_PPROF_INUSE_BYTES, "bench", "bytes", out);
        else
            hf_flame_render(p, HF_PPROF_INUSE_BYTES, "bench", "bytes", 0, out, 1);
        t[i] = (g_get_monotonic_time() - t0) / 1e6;
        size = out->len;
        frames = 0;
        for (const char *q = out->str; (q = strstr(q, "<g class=\"f\"")); q++)
            frames++;
        g_string_free(out, TRUE);
    }
    for (int i = 1; i < runs; i++) /* insertion sort: a handful of runs */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    printf("%zu stacks, %zu distinct frames: %s %.3f s (median of %d), %zu bytes, %zu "
           "frames\n",
           hf_pprof_n_stacks(p), hf_pprof_n_frames(p), before ? "flame-diff.svg" : "flame.svg",
           t[runs / 2], runs, size, frames);
    g_free(t);
}
