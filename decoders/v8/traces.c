/*
 * traces.c - allocation traces of snapshots taken with allocation tracking
 * (node --track-heap-objects, DevTools' "Allocation instrumentation on
 * timeline"): `trace_function_infos` (per function: id, name, script name,
 * script id, line, column; V8 writes positions from 1, 0 when unknown) and
 * `trace_tree` (per call-tree node: id, function, the live objects and
 * bytes allocated there, its children, nested), read by the scanner
 * (v8_read_trace_tree, v8_read_trace_functions); a node's trace_node_id
 * names the call-tree node it was allocated at.
 *
 * Traces are numbered across the snapshots of a dump (serial = the
 * snapshot's tbase + the tree node's index + 1), so heap.pprof's builder,
 * which sees only a serial, finds the snapshot.  Frames are named
 * "function (script:line:column)" (heap.pprof, stacks.folded with full names)
 * or "function", leaf first; the tree's root "(root)" is left out.
 * traces/N is trace N's frames with full names, one a line, as the other
 * formats with stacks write them; N runs over every call-tree node, so the
 * root's file is empty.
 *
 * Building is single-threaded (open); the rest is read-only.
 */
#include "decoders/v8/v8.h"
#include "decoders/core/names.h"
#include "decoders/heap/render.h"

#include <string.h>

bool v8_read_trace_tree(v8_json *j, v8_snap *sn, const int *pos, uint32_t per)
{
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(v8_tnode));
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint32_t parent = UINT32_MAX;
    bool ok = v8_json_expect(j, '[');
    if (ok && v8_json_accept(j, ']'))
        goto done;
    while (ok) {
        /* a node: its fields but the last, then its children's list */
        uint64_t val[16] = {0};
        for (uint32_t k = 0; ok && k + 1 < per; k++)
            ok = (k == 0 || v8_json_expect(j, ',')) && v8_json_uint(j, &val[k]);
        ok = ok && v8_json_expect(j, ',') && v8_json_expect(j, '[');
        if (!ok || nodes->len == UINT32_MAX - 1)
            break;
        v8_tnode t = {val[pos[TN_ID]], parent, (uint32_t)MIN(val[pos[TN_FUNC]], UINT32_MAX),
                      val[pos[TN_COUNT]], val[pos[TN_SIZE]]};
        g_array_append_val(nodes, t);
        if (!v8_json_accept(j, ']')) { /* children: read them first */
            g_array_append_val(stack, parent);
            parent = nodes->len - 1;
            continue;
        }
        /* this node is done: a sibling comes, or lists close */
        for (;;) {
            if (v8_json_accept(j, ','))
                break;
            if (!(ok = v8_json_expect(j, ']')))
                break;
            if (!stack->len)
                goto done;
            parent = g_array_index(stack, uint32_t, stack->len - 1);
            g_array_set_size(stack, stack->len - 1);
        }
    }
done:
    sn->n_tnodes = nodes->len;
    sn->tnodes = (v8_tnode *)g_array_free(nodes, FALSE);
    g_array_free(stack, TRUE);
    return ok;
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return (x > y) - (x < y);
}

/* sn->trace: from call-tree node ids to their index + 1 (0: none). */
void v8_link_traces(hf_dump *d, v8_snap *sn)
{
    if (!sn->n_tnodes) {
        if (sn->n) /* no nodes: no array either */
            memset(sn->trace, 0, (size_t)sn->n * 4);
        return;
    }
    uint64_t *pairs = g_new(uint64_t, 2 * (size_t)sn->n_tnodes);
    for (uint32_t i = 0; i < sn->n_tnodes; i++) {
        pairs[2 * i] = sn->tnodes[i].id;
        pairs[2 * i + 1] = i;
    }
    qsort(pairs, sn->n_tnodes, 16, cmp_id);
    uint64_t unknown = 0;
    for (uint32_t v = 0; v < sn->n; v++) {
        if (!sn->trace[v])
            continue;
        uint64_t key[2] = {sn->trace[v], 0};
        const uint64_t *hit = bsearch(key, pairs, sn->n_tnodes, 16, cmp_id);
        unknown += !hit;
        sn->trace[v] = hit ? (uint32_t)hit[1] + 1 : 0;
    }
    for (uint32_t i = 0; i < sn->n_tnodes; i++)
        if (sn->tnodes[i].func >= sn->n_tfuncs) {
            hf_problem_nooff(d, "%s: trace node %" G_GUINT64_FORMAT " names function %u of %u",
                             sn->path, sn->tnodes[i].id, sn->tnodes[i].func, sn->n_tfuncs);
            sn->tnodes[i].func = UINT32_MAX;
        }
    if (unknown)
        hf_problem_nooff(d, "%s: %" G_GUINT64_FORMAT " nodes name a trace node the trace tree "
                         "lacks", sn->path, unknown);
    g_free(pairs);
}

/* Frame text of call-tree node i. */
static void frame(const v8_snap *sn, uint32_t i, bool full, GString *out)
{
    uint32_t f = sn->tnodes[i].func;
    if (f == UINT32_MAX) {
        g_string_append(out, "(unknown)");
        return;
    }
    const v8_tfunc *fn = &sn->tfuncs[f];
    size_t at = out->len;
    v8_string(sn, fn->name, out);
    if (out->len == at)
        g_string_append(out, "(anonymous)");
    if (!full)
        return;
    g_string_append(out, " (");
    at = out->len;
    v8_string(sn, fn->script, out);
    if (out->len == at)
        g_string_append(out, "no script");
    g_string_append_printf(out, ":%u:%u)", fn->line, fn->column);
}

void v8_trace_names(const hf_heap *h, uint32_t serial, bool full, GPtrArray *frames, void *ud)
{
    const v8_dump *d = (const v8_dump *)h;
    for (guint s = d->snaps->len; s-- > 0;) {
        const v8_snap *sn = g_ptr_array_index(d->snaps, s);
        if (serial <= sn->tbase)
            continue;
        uint32_t i = serial - sn->tbase - 1;
        GString *t = g_string_new(NULL);
        for (uint32_t steps = 0; i < sn->n_tnodes && steps < sn->n_tnodes; steps++) {
            if (sn->tnodes[i].parent == UINT32_MAX)
                break; /* the root, "(root)" */
            g_string_truncate(t, 0);
            frame(sn, i, full, t);
            g_ptr_array_add(frames, g_strdup(t->str));
            i = sn->tnodes[i].parent;
        }
        g_string_free(t, TRUE);
        return;
    }
}

uint64_t v8_n_traces(hf_dump *d)
{
    const v8_dump *vd = (const v8_dump *)d;
    if (!vd->snaps->len)
        return 0;
    const v8_snap *last = g_ptr_array_index(vd->snaps, vd->snaps->len - 1);
    return (uint64_t)last->tbase + last->n_tnodes;
}

uint64_t v8_trace_number(hf_dump *d, uint64_t t)
{
    return t + 1;
}

uint64_t v8_view_trace(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget)
{
    if (v->index >= v8_n_traces(d))
        return HF_DONE;
    GPtrArray *frames = g_ptr_array_new_with_free_func(g_free);
    v8_trace_names((const hf_heap *)d, (uint32_t)v->index + 1, true, frames, NULL);
    for (guint k = 0; k < frames->len; k++) {
        hf_escape_str(out, g_ptr_array_index(frames, k));
        g_string_append_c(out, '\n');
    }
    g_ptr_array_free(frames, TRUE);
    return HF_DONE;
}

/* sites: the call-tree nodes with live objects, as the tree counts them. */
uint64_t v8_view_sites(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                       size_t budget)
{
    const v8_dump *vd = (const v8_dump *)d;
    if (v->snap >= vd->snaps->len)
        return HF_DONE;
    const v8_snap *sn = g_ptr_array_index(vd->snaps, v->snap);
    size_t start = out->len;
    if (!first)
        g_string_append(out, "# objects\tbytes\ttrace\tfunction\n");
    for (uint64_t i = first; i < sn->n_tnodes; i++) {
        const v8_tnode *t = &sn->tnodes[i];
        if (!t->count && !t->size)
            continue;
        if (hf_budget_spent(out, start, budget))
            return i;
        g_string_append_printf(out, "%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%u\t", t->count,
                               t->size, sn->tbase + (uint32_t)i + 1);
        GString *f = g_string_new(NULL);
        frame(sn, (uint32_t)i, true, f);
        hf_heap_escape_line(out, f->str, f->len);
        g_string_free(f, TRUE);
        g_string_append_c(out, '\n');
    }
    return HF_DONE;
}

bool v8_has_sites(hf_dump *d, uint32_t s, uint64_t index)
{
    const v8_dump *vd = (const v8_dump *)d;
    return s < vd->snaps->len && ((v8_snap *)g_ptr_array_index(vd->snaps, s))->n_tnodes > 1;
}
