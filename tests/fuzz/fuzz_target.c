/*
 * fuzz_target.c - the libFuzzer target of one decoder, built once per
 * decoder by tests/fuzz/fuzz.mk with -DHF_FUZZ_FORMAT='"name"' into
 * build/fuzz/fuzz_<name>.
 *
 * Each input goes through what a mount does with a file: every registered
 * decoder's detect() looks at its head (format detection), then the target's
 * own decoder, if its detect() accepts the bytes, indexes them (open), and
 * walk.h visits and reads every node of the tree (capped per directory),
 * twice, with a tiny and a big view cache: both walks must read identical
 * bytes.  A decoder with open_series also gets series: an input holding
 * HF_FUZZ_SPLIT is cut there into up to 4 files.
 *
 * The pages after the dump's mapping are made unreadable while it is open
 * (hf_walk_open_buffers): a read past the file's end faults, as it may in
 * a mount, instead of landing unseen in memory mapped next to it.  Every
 * view is walked, the retained ones (dominators, path, retained,
 * dominated/, referrers/) included, so the dominator computation and the
 * readers of object bytes it drives are fuzzed too.
 *
 * Crashes, leaks, sanitizer reports, GLib criticals and warnings, and broken
 * tree contracts (walk.h; abort()) are all findings.  HF_FUZZ_LAX=1 in the
 * environment reports contract violations on stderr without aborting, to
 * keep a long run going past a known one.
 *
 * HF_FUZZ_CHANGE=1: the dump changes underneath.  After indexing, the bytes
 * under the decoder's mapping are overwritten in place (same size: from a
 * third of the file on, each byte XOR 0x5A, then the last quarter zeroed)
 * and the tree is walked once over them, as a mount serves getattr, readdir
 * and already-open files while someone rewrites the dump.  Only crashes and
 * sanitizer reports count then: the views are garbage by design.
 */
#include "decoders/core/registry.h"
#include "tests/fuzz/walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HF_FUZZ_FORMAT
#error "build with -DHF_FUZZ_FORMAT='\"hprof\"' (see tests/fuzz/fuzz.mk)"
#endif

#define HF_FUZZ_SPLIT "\n@@heapfs-next-file@@\n"
#define MAX_PARTS 4

static const hf_decoder *dec;
static bool lax, change;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    dec = hf_walk_decoder(HF_FUZZ_FORMAT);
    if (!dec) {
        fprintf(stderr, "fuzz: no decoder '%s' is registered in decoders/core/registry.c\n",
                HF_FUZZ_FORMAT);
        exit(1);
    }
    lax = getenv("HF_FUZZ_LAX") && strcmp(getenv("HF_FUZZ_LAX"), "0") != 0;
    change = getenv("HF_FUZZ_CHANGE") && strcmp(getenv("HF_FUZZ_CHANGE"), "0") != 0;
    g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
    return 0;
}

static void walk_and_check(hf_dump *d)
{
    hf_walk_opts o;
    hf_walk_opts_default(&o);
    o.max_children = 64;
    o.max_file_bytes = 256u << 10;
    o.max_nodes = 20000;
    o.cache_bytes = 4096; /* everything re-rendered: renders must repeat */
    hf_walk_stats a, b;
    hf_walk(d, &o, &a);
    o.cache_bytes = 64u << 20;
    hf_walk(d, &o, &b);
    const char *what = a.violations ? a.first : b.violations ? b.first : NULL;
    char msg[600];
    if (!what && a.digest != b.digest) {
        snprintf(msg, sizeof msg, "two walks read different bytes (rendering is not repeatable)");
        what = msg;
    }
    if (what) {
        static unsigned reported;
        if (!lax || reported++ < 50)
            fprintf(stderr, "fuzz_%s: contract broken: %s\n", HF_FUZZ_FORMAT, what);
        if (!lax)
            abort();
    }
}

/* Rewrites the first file in place, same size (see the top comment). */
static void change_underneath(int fd, const uint8_t *data, size_t len)
{
    if (fd < 0 || len < 4)
        return;
    uint8_t *b = g_memdup2(data, len);
    for (size_t i = len / 3; i < len; i++)
        b[i] ^= 0x5A;
    memset(b + len - len / 4, 0, len / 4);
    (void)!pwrite(fd, b, len, 0);
    g_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    /* Detection: every decoder looks at the head, as hf_open does. */
    size_t head = size < 4096 ? size : 4096;
    for (const hf_decoder *const *p = hf_decoders(); *p; p++)
        (void)(*p)->detect(data, head);

    const uint8_t *parts[MAX_PARTS];
    size_t lens[MAX_PARTS];
    int n = 1;
    parts[0] = data;
    lens[0] = size;
    if (dec->open_series) {
        size_t sl = strlen(HF_FUZZ_SPLIT);
        const uint8_t *p = data, *end = data + size, *hit;
        while (n < MAX_PARTS &&
               (hit = memmem(p, (size_t)(end - p), HF_FUZZ_SPLIT, sl)) != NULL) {
            lens[n - 1] = (size_t)(hit - parts[n - 1]);
            p = hit + sl;
            parts[n] = p;
            lens[n] = (size_t)(end - p);
            n++;
        }
    }
    GError *err = NULL;
    int fd = -1;
    hf_dump *d = hf_walk_open_buffers(parts, lens, n, dec, change ? &fd : NULL, &err);
    if (!d) {
        /* Refused: the message is one line, as heapfs prints it. */
        if (!err || !*err->message || strchr(err->message, '\n')) {
            fprintf(stderr, "fuzz_%s: refused without a one-line message\n", HF_FUZZ_FORMAT);
            if (!lax)
                abort();
        }
        g_clear_error(&err);
        return 0;
    }
    if (change) {
        change_underneath(fd, parts[0], lens[0]);
        hf_walk_opts o;
        hf_walk_opts_default(&o);
        o.max_children = 64;
        o.max_file_bytes = 256u << 10;
        o.max_nodes = 20000;
        hf_walk_stats st;
        hf_walk(d, &o, &st);
        if (fd >= 0)
            close(fd);
    } else {
        walk_and_check(d);
    }
    hf_walk_close(d);
    return 0;
}
