/*
 * scan.c - a Profile to a snapshot (gopprof.h).  Every reference is
 * checked: a string index out of the table, a location or function id
 * that does not exist, a sample with the wrong number of values become a
 * problem and a placeholder ("[bad string N]", "[no location N]"), never a
 * read outside the message.
 */
#include "decoders/gopprof/gopprof.h"

#include <inttypes.h>
#include <string.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;

/* String i of the table, or a placeholder written to tmp. */
static const char *str(gopprof_dump *d, const Profile *p, int64_t i, GString *tmp, bool *bad)
{
    if (i >= 0 && (uint64_t)i < p->n_string_table && p->string_table[i])
        return p->string_table[i];
    *bad = true;
    g_string_printf(tmp, "[bad string %" PRId64 "]", i);
    return tmp->str;
}

static uint32_t intern_frame(gopprof_dump *d, const char *frame, const char *func)
{
    gpointer v = g_hash_table_lookup(d->frame_idx, frame);
    if (v)
        return GPOINTER_TO_UINT(v) - 1;
    char *copy = g_strdup(frame);
    g_ptr_array_add(d->frames, copy);
    g_ptr_array_add(d->funcs, g_strdup(func));
    g_hash_table_insert(d->frame_idx, copy, GUINT_TO_POINTER(d->frames->len));
    return d->frames->len - 1;
}

/* The trace of the frames in key ([0] = n); key is taken. */
static uint32_t intern_trace(gopprof_dump *d, uint32_t *key)
{
    if (!d->trace_idx)
        d->trace_idx = g_hash_table_new_full(hf_stack_hash, hf_stack_equal, g_free, NULL);
    gpointer v = g_hash_table_lookup(d->trace_idx, key);
    if (v) {
        g_free(key);
        return GPOINTER_TO_UINT(v) - 1;
    }
    gopprof_trace t = {d->trace_frames->len, key[0]};
    g_array_append_vals(d->trace_frames, key + 1, key[0]);
    g_array_append_val(d->traces, t);
    g_hash_table_insert(d->trace_idx, key, GUINT_TO_POINTER(d->traces->len));
    return d->traces->len - 1;
}

/* The frames of one location, callee first, appended to key. */
static void location_frames(gopprof_dump *d, const Profile *p, GHashTable *funcs, const Location *l,
                            GArray *key, uint64_t *bad_strings, uint64_t *bad_funcs)
{
    GString *tmp = g_string_new(NULL), *tmp2 = g_string_new(NULL), *frame = g_string_new(NULL);
    if (l->n_line == 0) {
        g_string_printf(frame, "0x%" PRIx64, l->address);
        uint32_t f = intern_frame(d, frame->str, frame->str);
        g_array_append_val(key, f);
    }
    for (size_t i = 0; i < l->n_line; i++) {
        const Function *fn = g_hash_table_lookup(funcs, &l->line[i]->function_id);
        bool bad = false;
        const char *name, *file = "";
        if (!fn) {
            (*bad_funcs)++;
            g_string_printf(tmp, "[no function %" PRIu64 "]", l->line[i]->function_id);
            name = tmp->str;
        } else {
            name = str(d, p, fn->name, tmp, &bad);
            file = str(d, p, fn->filename, tmp2, &bad);
        }
        if (bad)
            (*bad_strings)++;
        if (!*name)
            name = "[unnamed]";
        g_string_assign(frame, name);
        if (*file)
            g_string_append_printf(frame, " (%s:%" PRId64 ")", file, l->line[i]->line);
        uint32_t f = intern_frame(d, frame->str, name);
        g_array_append_val(key, f);
    }
    g_string_free(tmp, TRUE);
    g_string_free(tmp2, TRUE);
    g_string_free(frame, TRUE);
}

/* Which value is each of the four heap.pprof values: by Go's names, else
 * the first type counted in "count" (or the first of all) for objects and
 * the last in "bytes" (or the last of all) for bytes, in-use and allocated
 * alike; -1 for a profile without sample types (gopprof_value). */
static void pick_types(gopprof_snap *sn)
{
    static const char *const go[4] = {"inuse_objects/", "inuse_space/", "alloc_objects/",
                                      "alloc_space/"};
    int count = -1, bytes = -1;
    for (int k = 0; k < 4; k++)
        sn->idx[k] = -1;
    for (guint i = 0; i < sn->types->len; i++) {
        const char *t = g_ptr_array_index(sn->types, i);
        for (int k = 0; k < 4; k++)
            if (g_str_has_prefix(t, go[k]) && sn->idx[k] < 0)
                sn->idx[k] = (int)i;
        if (count < 0 && g_str_has_suffix(t, "/count"))
            count = (int)i;
        if (g_str_has_suffix(t, "/bytes"))
            bytes = (int)i;
    }
    if (bytes < 0)
        bytes = (int)sn->types->len - 1;
    if (count < 0 && sn->types->len)
        count = 0;
    for (int k = 0; k < 4; k++) {
        if (sn->idx[k] < 0)
            sn->idx[k] = sn->idx[k ^ 2]; /* in-use <-> allocated */
        if (sn->idx[k] < 0)
            sn->idx[k] = k % 2 ? bytes : count;
    }
}

void gopprof_scan(gopprof_dump *d, gopprof_snap *sn, const Profile *p)
{
    GString *tmp = g_string_new(NULL), *tmp2 = g_string_new(NULL);
    uint64_t bad_strings = 0, bad_funcs = 0, bad_locs = 0, bad_values = 0;
    bool bad = false;
    sn->types = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < p->n_sample_type; i++) {
        bad = false;
        const char *t = str(d, p, p->sample_type[i]->type, tmp, &bad);
        const char *u = str(d, p, p->sample_type[i]->unit, tmp2, &bad);
        bad_strings += bad;
        g_ptr_array_add(sn->types, g_strdup_printf("%s/%s", t, u));
    }
    bad = false;
    sn->period_type = p->period_type ? g_strdup_printf("%s/%s", str(d, p, p->period_type->type, tmp, &bad),
                                                       str(d, p, p->period_type->unit, tmp2, &bad))
                                     : g_strdup("");
    bad_strings += bad;
    sn->period = p->period;
    sn->duration_nanos = p->duration_nanos;
    sn->time_nanos = p->time_nanos;
    pick_types(sn);

    /* Functions and locations by id; the first of a duplicated id wins. */
    GHashTable *funcs = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTable *locs = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (size_t i = 0; i < p->n_function; i++)
        if (!g_hash_table_contains(funcs, &p->function[i]->id))
            g_hash_table_insert(funcs, &p->function[i]->id, p->function[i]);
    for (size_t i = 0; i < p->n_location; i++)
        if (!g_hash_table_contains(locs, &p->location[i]->id))
            g_hash_table_insert(locs, &p->location[i]->id, p->location[i]);

    size_t nt = sn->types->len;
    sn->samples = g_array_new(FALSE, FALSE, sizeof(gopprof_sample));
    sn->vals = g_array_new(FALSE, TRUE, sizeof(int64_t));
    sn->totals = g_new0(int64_t, nt ? nt : 1);
    sn->n_raw = p->n_sample;
    GHashTable *by_trace = g_hash_table_new(g_direct_hash, g_direct_equal); /* trace+1 -> sample+1 */
    GArray *key = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        if (s->n_value != nt) {
            bad_values++;
            continue;
        }
        g_array_set_size(key, 1);
        for (size_t j = 0; j < s->n_location_id; j++) {
            const Location *l = g_hash_table_lookup(locs, &s->location_id[j]);
            if (!l) {
                bad_locs++;
                g_string_printf(tmp, "[no location %" PRIu64 "]", s->location_id[j]);
                uint32_t f = intern_frame(d, tmp->str, tmp->str);
                g_array_append_val(key, f);
                continue;
            }
            location_frames(d, p, funcs, l, key, &bad_strings, &bad_funcs);
        }
        if (key->len == 1) {
            uint32_t f = intern_frame(d, "[no stack]", "[no stack]");
            g_array_append_val(key, f);
        }
        g_array_index(key, uint32_t, 0) = key->len - 1;
        uint32_t tr = intern_trace(d, g_memdup2(key->data, key->len * sizeof(uint32_t)));
        gpointer found = g_hash_table_lookup(by_trace, GUINT_TO_POINTER(tr + 1));
        int64_t *v;
        if (found) {
            v = &g_array_index(sn->vals, int64_t,
                               g_array_index(sn->samples, gopprof_sample, GPOINTER_TO_UINT(found) - 1).vals);
        } else {
            gopprof_sample gs = {tr, sn->vals->len};
            g_array_set_size(sn->vals, sn->vals->len + nt);
            g_array_append_val(sn->samples, gs);
            g_hash_table_insert(by_trace, GUINT_TO_POINTER(tr + 1), GUINT_TO_POINTER(sn->samples->len));
            v = &g_array_index(sn->vals, int64_t, gs.vals);
        }
        for (size_t k = 0; k < nt; k++) {
            v[k] = (int64_t)((uint64_t)v[k] + (uint64_t)s->value[k]);
            sn->totals[k] = (int64_t)((uint64_t)sn->totals[k] + (uint64_t)s->value[k]);
        }
    }
    if (bad_strings)
        hf_problem_nooff(&d->base, "%s: %" PRIu64 " string table indices out of range (shown as [bad string N])",
                         sn->path, bad_strings);
    if (bad_funcs)
        hf_problem_nooff(&d->base, "%s: %" PRIu64 " lines name a function id that does not exist",
                         sn->path, bad_funcs);
    if (bad_locs)
        hf_problem_nooff(&d->base, "%s: %" PRIu64 " sample frames name a location id that does not exist",
                         sn->path, bad_locs);
    if (bad_values)
        hf_problem_nooff(&d->base, "%s: %" PRIu64 " samples do not have one value per sample type (%zu): left out",
                         sn->path, bad_values, nt);
    g_array_free(key, TRUE);
    g_hash_table_destroy(by_trace);
    g_hash_table_destroy(funcs);
    g_hash_table_destroy(locs);
    g_string_free(tmp, TRUE);
    g_string_free(tmp2, TRUE);
}

void gopprof_snap_free(gopprof_snap *sn)
{
    if (!sn)
        return;
    g_free(sn->path);
    if (sn->file)
        g_bytes_unref(sn->file);
    if (sn->types)
        g_ptr_array_free(sn->types, TRUE);
    g_free(sn->period_type);
    if (sn->samples)
        g_array_free(sn->samples, TRUE);
    if (sn->vals)
        g_array_free(sn->vals, TRUE);
    g_free(sn->totals);
    hf_pprof_free(sn->pp_full);
    hf_pprof_free(sn->pp_brief);
    g_free(sn);
}
