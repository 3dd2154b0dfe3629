/*
 * tcmalloc_prog.c - makes gperftools heap profiles for the tests.
 *
 * Built at test time with -ltcmalloc and run with HEAPPROFILE=PREFIX; it
 * dumps two profiles of one run (PREFIX.0001.heap, PREFIX.0002.heap)
 * through gperftools' own HeapProfilerDump, with known contents:
 *   profile 1: keep_small 1000 x 1000 B and keep_big 8 x 1 MiB live,
 *              churn 200 x 5000 B allocated and freed;
 *   profile 2: the same, plus grow 500 x 2000 B live.
 * Each allocating function is its own stack, so the profiles have one line
 * per function and `diff` of the two sites shows only grow.
 */
#include <gperftools/heap-profiler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *keep[2000];
static int nkeep;

__attribute__((noinline)) static void keep_small(void)
{
    for (int i = 0; i < 1000; i++)
        keep[nkeep++] = malloc(1000);
}

__attribute__((noinline)) static void keep_big(void)
{
    for (int i = 0; i < 8; i++) {
        keep[nkeep] = malloc(1 << 20);
        memset(keep[nkeep++], 1, 64);
    }
}

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < 200; i++) {
        char *volatile p = malloc(5000);
        p[0] = 1;
        free(p);
    }
}

__attribute__((noinline)) static void grow(void)
{
    for (int i = 0; i < 500; i++)
        keep[nkeep++] = malloc(2000);
}

int main(void)
{
    if (!IsHeapProfilerRunning()) {
        fprintf(stderr, "tcmalloc_prog: run with HEAPPROFILE=prefix\n");
        return 2;
    }
    keep_small();
    keep_big();
    churn();
    HeapProfilerDump("first");
    grow();
    HeapProfilerDump("second");
    HeapProfilerStop();
    for (int i = 0; i < nkeep; i++)
        free(keep[i]);
    return 0;
}
