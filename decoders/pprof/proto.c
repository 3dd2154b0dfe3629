/*
 * proto.c - heap.pb.gz writer and the gzip helpers (see proto.h).  The
 * messages are protobuf-c's, generated from decoders/pprof/profile.proto.
 */
#include "decoders/pprof/proto.h"

#include "build/gen/pprof/profile.pb-c.h"
#include "decoders/core/model.h"

#include <math.h>
#include <string.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;

/* The string table: "" first, then each string once. */
typedef struct {
    GHashTable *idx; /* char * (in strs) -> index */
    GPtrArray *strs; /* char *, owned */
} strtab;

static int64_t str_id(strtab *t, const char *s)
{
    gpointer v;
    if (g_hash_table_lookup_extended(t->idx, s, NULL, &v))
        return GPOINTER_TO_INT(v);
    char *copy = g_strdup(s);
    int64_t i = t->strs->len;
    g_ptr_array_add(t->strs, copy);
    g_hash_table_insert(t->idx, copy, GINT_TO_POINTER((int)i));
    return i;
}

/* The sampling rate google-pprof applies to a kind heapfs keeps raw
 * (heap_v2/N, heapz_v2/N); 0 for the others. */
static uint64_t kind_rate(const char *kind)
{
    size_t n = strcspn(kind, "/");
    if (kind[n] != '/')
        return 0;
    if (!((n == 7 && strncmp(kind, "heap_v2", 7) == 0) ||
          (n == 8 && strncmp(kind, "heapz_v2", 8) == 0)))
        return 0;
    uint64_t r = g_ascii_strtoull(kind + n + 1, NULL, 10);
    return r > 1 ? r : 0;
}

static int64_t clamp64(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    return (int64_t)x;
}

static int64_t to64(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* count and bytes scaled as google/pprof scales a v2 heap sample. */
static void scale(uint64_t count, uint64_t bytes, uint64_t rate, int64_t *c, int64_t *b)
{
    if (!rate || count == 0) {
        *c = to64(count);
        *b = to64(bytes);
        return;
    }
    double avg = (double)bytes / (double)count;
    double f = 1.0 / (1.0 - exp(-avg / (double)rate));
    *c = clamp64((double)count * f);
    *b = clamp64((double)bytes * f);
}

uint8_t *hf_pprof_encode(const hf_pprof *p, size_t *len)
{
    strtab st = {g_hash_table_new(g_str_hash, g_str_equal), g_ptr_array_new_with_free_func(g_free)};
    str_id(&st, "");
    uint64_t rate = kind_rate(hf_pprof_kind(p));

    Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
    static const char *const types[4][2] = {{"alloc_objects", "count"},
                                            {"alloc_space", "bytes"},
                                            {"inuse_objects", "count"},
                                            {"inuse_space", "bytes"}};
    ValueType vt[4], period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    ValueType *vtp[4];
    for (int i = 0; i < 4; i++) {
        perftools__profiles__value_type__init(&vt[i]);
        vt[i].type = str_id(&st, types[i][0]);
        vt[i].unit = str_id(&st, types[i][1]);
        vtp[i] = &vt[i];
    }
    prof.n_sample_type = 4;
    prof.sample_type = vtp;
    prof.default_sample_type = vt[3].type;
    period_type.type = str_id(&st, "space");
    period_type.unit = str_id(&st, "bytes");
    prof.period_type = &period_type;
    prof.period = (int64_t)rate;

    size_t nf = hf_pprof_n_frames(p);
    Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT;
    Mapping *mapp = &map;
    map.id = 1;
    map.memory_start = HF_PPROF_ADDR_BASE;
    map.memory_limit = HF_PPROF_ADDR_BASE + (uint64_t)HF_PPROF_ADDR_STEP * (nf ? nf : 1);
    map.filename = str_id(&st, hf_pprof_binary(p));
    map.has_functions = 1;
    prof.n_mapping = 1;
    prof.mapping = &mapp;

    Function *fn = g_new(Function, nf ? nf : 1);
    Location *loc = g_new(Location, nf ? nf : 1);
    Line *line = g_new(Line, nf ? nf : 1);
    Function **fnp = g_new(Function *, nf ? nf : 1);
    Location **locp = g_new(Location *, nf ? nf : 1);
    Line **linep = g_new(Line *, nf ? nf : 1);
    GString *name = g_string_new(NULL);
    for (size_t k = 0; k < nf; k++) {
        perftools__profiles__function__init(&fn[k]);
        perftools__profiles__location__init(&loc[k]);
        perftools__profiles__line__init(&line[k]);
        g_string_truncate(name, 0);
        hf_pprof_append_symbol(name, hf_pprof_frame(p, k));
        fn[k].id = k + 1;
        fn[k].name = fn[k].system_name = str_id(&st, name->str);
        line[k].function_id = k + 1;
        linep[k] = &line[k];
        loc[k].id = k + 1;
        loc[k].mapping_id = 1;
        loc[k].address = HF_PPROF_ADDR_BASE + (uint64_t)HF_PPROF_ADDR_STEP * k;
        loc[k].n_line = 1;
        loc[k].line = &linep[k];
        fnp[k] = &fn[k];
        locp[k] = &loc[k];
    }
    g_string_free(name, TRUE);
    prof.n_function = prof.n_location = nf;
    prof.function = fnp;
    prof.location = locp;

    size_t ns = hf_pprof_n_stacks(p), kept = 0;
    Sample *sm = g_new(Sample, ns ? ns : 1);
    Sample **smp = g_new(Sample *, ns ? ns : 1);
    int64_t *vals = g_new(int64_t, 4 * (ns ? ns : 1));
    GPtrArray *ids = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; i < ns; i++) {
        const uint32_t *fr;
        size_t n;
        hf_pprof_values v;
        hf_pprof_sample(p, i, &fr, &n, &v);
        if (n == 0)
            continue;
        Sample *s = &sm[kept];
        perftools__profiles__sample__init(s);
        uint64_t *loc_ids = g_new(uint64_t, n);
        for (size_t j = 0; j < n; j++)
            loc_ids[j] = (uint64_t)fr[j] + 1;
        g_ptr_array_add(ids, loc_ids);
        s->n_location_id = n;
        s->location_id = loc_ids;
        int64_t *x = vals + 4 * kept;
        scale(v.alloc_objects, v.alloc_bytes, rate, &x[0], &x[1]);
        scale(v.inuse_objects, v.inuse_bytes, rate, &x[2], &x[3]);
        s->n_value = 4;
        s->value = x;
        smp[kept++] = s;
    }
    prof.n_sample = kept;
    prof.sample = smp;
    prof.n_string_table = st.strs->len;
    prof.string_table = (char **)st.strs->pdata;

    *len = perftools__profiles__profile__get_packed_size(&prof);
    uint8_t *buf = g_malloc(*len ? *len : 1);
    perftools__profiles__profile__pack(&prof, buf);

    g_ptr_array_free(ids, TRUE);
    g_free(vals);
    g_free(smp);
    g_free(sm);
    g_free(fnp);
    g_free(locp);
    g_free(linep);
    g_free(fn);
    g_free(loc);
    g_free(line);
    g_hash_table_destroy(st.idx);
    g_ptr_array_free(st.strs, TRUE);
    return buf;
}

uint64_t hf_pprof_render_proto(const hf_pprof *p, uint64_t first, GString *out, size_t budget)
{
    if (first != 0)
        return HF_DONE;
    size_t len;
    uint8_t *buf = hf_pprof_encode(p, &len);
    hf_gzip_append(buf, len, out);
    g_free(buf);
    return HF_DONE;
}

/* ---- gzip ---- */

void hf_gzip_append(const uint8_t *data, size_t len, GString *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip wrapper; the header is set below, mtime 0. */
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        g_error("heapfs: zlib deflateInit2 failed");
    gz_header h;
    memset(&h, 0, sizeof h);
    h.os = 255;
    deflateSetHeader(&z, &h);
    uint8_t chunk[65536];
    z.next_in = (Bytef *)data;
    int rc;
    do {
        /* avail_in is 32-bit: feed at most 1 GiB at a time. */
        if (z.avail_in == 0 && len > 0) {
            size_t take = len > (1u << 30) ? (1u << 30) : len;
            z.avail_in = (uInt)take;
            len -= take;
        }
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        rc = deflate(&z, len == 0 ? Z_FINISH : Z_NO_FLUSH);
        g_string_append_len(out, (const char *)chunk, (gssize)(sizeof chunk - z.avail_out));
    } while (rc != Z_STREAM_END);
    deflateEnd(&z);
}

bool hf_is_gzip(const uint8_t *data, size_t len)
{
    return len >= 3 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8;
}

GByteArray *hf_gunzip(const uint8_t *data, size_t len, size_t cap, bool *truncated,
                      GError **err)
{
    *truncated = false;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "zlib inflateInit2 failed");
        return NULL;
    }
    GByteArray *outa = g_byte_array_new();
    uint8_t chunk[65536];
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
    size_t left = len - z.avail_in;
    for (;;) {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        int rc = inflate(&z, Z_NO_FLUSH);
        size_t got = sizeof chunk - z.avail_out;
        if (outa->len + got > cap) {
            g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT,
                        "gzip stream inflates beyond %zu bytes (the limit): not read", cap);
            goto fail;
        }
        g_byte_array_append(outa, chunk, (guint)got);
        if (z.avail_in == 0 && left > 0) {
            z.avail_in = (uInt)(left > UINT32_MAX ? UINT32_MAX : left);
            left -= z.avail_in;
        }
        if (rc == Z_STREAM_END) {
            /* Another member may follow (gzip allows concatenation). */
            if (z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
                inflateReset(&z);
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0) {
            *truncated = true;
            break;
        }
        if (rc != Z_OK) {
            g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT, "gzip stream damaged: %s",
                        z.msg ? z.msg : "inflate error");
            goto fail;
        }
    }
    inflateEnd(&z);
    return outa;
fail:
    inflateEnd(&z);
    g_byte_array_free(outa, TRUE);
    return NULL;
}
