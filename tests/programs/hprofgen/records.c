/* records.c - the file's records, in file order: see hprofgen.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hprofgen.h"

/* ---- output ---- */

void flush(gen *g)
{
    size_t done = 0;
    while (done < g->blen) {
        ssize_t w = write(g->fd, g->buf + done, g->blen - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write %s: %s", g->out_path, strerror(errno));
        done += (size_t)w;
    }
    g->written += g->blen;
    g->blen = 0;
}

/* A top-level record header; the body (len bytes) is written next. */
static void record(gen *g, unsigned tag, uint64_t len)
{
    g->off += 9 + len;
    if (g->writing)
        commit(g, be4(be4(be1(room(g, 9), tag), 0), len));
}

static void seg_end(gen *g)
{
    if (!g->seg_open)
        return;
    if (!g->writing) {
        if (g->nsegs == g->capsegs) {
            g->capsegs = g->capsegs ? 2 * g->capsegs : 16;
            g->segs = xrealloc(g->segs, g->capsegs * sizeof *g->segs);
        }
        g->segs[g->nsegs++] = g->seg_len;
    } else if (g->segs[g->seg_i - 1] != g->seg_len) {
        die("internal error: segment %zu is %" PRIu64 " bytes, the first pass said %" PRIu64,
            g->seg_i, g->seg_len, g->segs[g->seg_i - 1]);
    }
    g->seg_open = false;
    g->seg_len = 0;
}

/* A heap dump sub-record of len bytes comes next: in the open segment, or a
 * new one when it would grow past --segment. */
void sub_begin(gen *g, uint64_t len)
{
    if (g->seg_open && g->seg_len + len > g->segment_max)
        seg_end(g);
    if (!g->seg_open) {
        g->seg_open = true;
        g->off += 9;
        if (g->writing) {
            if (g->seg_i >= g->nsegs)
                die("internal error: more segments than the first pass made");
            commit(g, be4(be4(be1(room(g, 9), 0x1C), 0), g->segs[g->seg_i++]));
        }
    }
    g->seg_len += len;
    g->off += len;
}

/* ---- the file ---- */

static void write_classes(gen *g)
{
    for (uint32_t i = 0; i < g->nk; i++) {
        const klass *k = &g->k[i];
        uint64_t len = 1 + 8 + 4 + 6 * 8 + 4 + 2 + 2 + 2 + 9 * (uint64_t)k->nf;
        for (uint32_t f = 0; f < k->ns; f++)
            len += 9 + dump_width(g->statics[k->s0 + f].type);
        sub_begin(g, len);
        if (!g->writing)
            continue;
        count_object(g, K_CLASS, k->mirror);
        uint8_t *p = room(g, len);
        p = be8(be4(be8(be1(p, 0x20), addr(g, k->rel)), 1),
                k->super >= 0 ? addr(g, g->k[k->super].rel) : 0);
        for (int z = 0; z < 5; z++)
            p = be8(p, 0); /* loader, signers, protection domain, reserved x2 */
        p = be2(be2(be4(p, k->dump), 0), k->ns);
        for (uint32_t f = 0; f < k->ns; f++) {
            const field *fd = &g->statics[k->s0 + f];
            uint64_t v;
            if (i == K_MAIN)
                v = f == 0 ? addr(g, g->p0_chain_head) : f == 1 ? addr(g, g->p0_big_prim)
                                                               : g->p0_heap;
            else if (i == K_STRING)
                v = f == 0 ? UINT64_C(0xA0F0A4387A3BB342) : f == 1 ? 1 : f == 2 ? 0 : 1;
            else if (fd->type == T_OBJECT)
                v = g->n_res ? addr(g, g->res[below(&g->rs_content, g->n_res)]) : 0;
            else
                v = random_value(g, fd->type);
            p = ben(be1(be8(p, fd->sid), fd->type), v, dump_width(fd->type));
        }
        p = be2(p, k->nf);
        for (uint32_t f = 0; f < k->nf; f++)
            p = be1(be8(p, g->fields[k->f0 + f].sid), g->fields[k->f0 + f].type);
        commit(g, p);
    }
}

static void write_roots(gen *g)
{
    sub_begin(g, 17);
    if (g->writing)
        commit(g, be4(be4(be8(be1(room(g, 17), 0x08), addr(g, g->thread_rel)), 1), 2));
    /* two locals of main's frames: the thread's name and a sampled object */
    uint64_t locals[2] = {g->main_str_rel, g->n_res ? g->res[0] : g->main_str_rel};
    for (int i = 0; i < 2; i++) {
        sub_begin(g, 17);
        if (g->writing)
            commit(g, be4(be4(be8(be1(room(g, 17), 0x03), addr(g, locals[i])), 1), (unsigned)i));
    }
    uint64_t globals[2] = {g->chain_prev, g->holder_rel};
    for (int i = 0; i < 2; i++) {
        if (globals[i] == NONE)
            continue;
        sub_begin(g, 17);
        if (g->writing)
            commit(g, be8(be8(be1(room(g, 17), 0x01), addr(g, globals[i])),
                          UINT64_C(0x00007f3a90058100) + 8 * (unsigned)i));
    }
    for (uint32_t i = 0; i < g->nk; i++) {
        sub_begin(g, 9);
        if (g->writing)
            commit(g, be8(be1(room(g, 9), 0x05), addr(g, g->k[i].rel)));
    }
}

/* One pass over the whole file; writes only when g->writing. */
void pass(gen *g)
{
    g->rs_shape = g->seed * UINT64_C(0x9E3779B97F4A7C15) + 1;
    g->rs_content = g->seed * UINT64_C(0xD1B54A32D192ED03) + 2;
    g->rs_sample = g->seed * UINT64_C(0xAEF17502108EF2D9) + 3;
    g->off = 0;
    g->seg_open = false;
    g->seg_len = 0;
    g->seg_i = 0;
    g->next_rel = g->mirrors_end;
    g->n_inst = g->n_objarr = g->n_primarr = g->n_strings = g->n_heap = 0;
    g->q_head = g->q_count = 0;
    g->n_recent = 0;
    g->chain_prev = NONE;
    g->chain_len = 0;
    g->chain_tail = NONE;
    g->big_prim_rel = g->big_obj_rel = NONE;
    g->n_samples = 0;
    g->latin_seen = g->utf16_seen = false;
    for (uint32_t i = 0; i < g->nk; i++)
        g->k[i].count = g->k[i].bytes = 0;

    /* header */
    static const char magic[] = "JAVA PROFILE 1.0.2";
    g->off += sizeof magic + 4 + 8;
    if (g->writing) {
        uint8_t *p = room(g, sizeof magic + 12);
        memcpy(p, magic, sizeof magic);
        commit(g, be8(be4(p + sizeof magic, 8), TIME_MS));
    }
    for (uint32_t i = 0; i < g->nstr; i++) {
        size_t n = strlen(g->stext[i]);
        record(g, 0x01, 8 + n);
        if (g->writing) {
            uint8_t *p = be8(room(g, 8 + n), SYM_BASE + 0x28 * (uint64_t)i);
            memcpy(p, g->stext[i], n);
            commit(g, p + n);
        }
    }
    for (uint32_t i = 0; i < g->nk; i++) {
        record(g, 0x02, 24);
        if (g->writing)
            commit(g, be8(be4(be8(be4(room(g, 24), i + 1), addr(g, g->k[i].rel)), 1), g->k[i].sid));
    }
    /* the dummy trace, then main's frames and trace */
    record(g, 0x05, 12);
    if (g->writing)
        commit(g, be4(be4(be4(room(g, 12), 1), 0), 0));
    const struct { uint64_t m, s, src; uint32_t cls; int32_t line; } fr[3] = {
        {g->sid_sleep, g->sid_sig_j, g->sid_src_thread, K_THREAD + 1, -3},
        {g->sid_run, g->sid_sig_v, g->sid_src_main, K_MAIN + 1, 87},
        {g->sid_main, g->sid_sig_main, g->sid_src_main, K_MAIN + 1, 42},
    };
    for (uint32_t i = 0; i < 3; i++) {
        record(g, 0x04, 40);
        if (g->writing)
            commit(g, be4(be4(be8(be8(be8(be8(room(g, 40), i + 1), fr[i].m), fr[i].s), fr[i].src),
                              fr[i].cls), (uint32_t)fr[i].line));
    }
    record(g, 0x05, 12 + 3 * 8);
    if (g->writing) {
        uint8_t *p = be4(be4(be4(room(g, 36), 2), 1), 3);
        for (uint32_t i = 0; i < 3; i++)
            p = be8(p, i + 1);
        commit(g, p);
    }
    write_classes(g);
    heap_objects(g);
    write_roots(g);
    seg_end(g);
    record(g, 0x2C, 0);
}

static int cmp_hist(const void *a, const void *b)
{
    const klass *x = *(klass *const *)a, *y = *(klass *const *)b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->display, y->display);
}

void write_histogram(gen *g, FILE *f)
{
    klass **v = xrealloc(NULL, g->nk * sizeof *v);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->nk; i++)
        if (g->k[i].count)
            v[n++] = &g->k[i];
    qsort(v, n, sizeof *v, cmp_hist);
    fputs("# objects\tbytes\tclass\n", f); /* heapfs's form, docs/views.md */
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%s\n", v[i]->count, v[i]->bytes, v[i]->display);
    free(v);
}
