/*
 * read.c - from bytes to a Profile (gopprof.h): gunzip through zlib
 * (decoders/pprof/proto.h, capped), unpack through protobuf-c, whose
 * allocations are counted against a budget (budget_of).  No wire format is decoded by hand: detect unpacks the first
 * field's ValueType message with protobuf-c too.
 */
#include "decoders/gopprof/gopprof.h"

#include "decoders/pprof/proto.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A varint of at most 2 bytes (a length below 16384), or -1. */
static int small_varint(const uint8_t *p, size_t len, size_t *v)
{
    if (len >= 1 && p[0] < 0x80) {
        *v = p[0];
        return 1;
    }
    if (len >= 2 && p[1] < 0x80) {
        *v = (size_t)(p[0] & 0x7f) | ((size_t)p[1] << 7);
        return 2;
    }
    return -1;
}

/* Whether p[0..l) reads, with protobuf-c, as a ValueType with a type and a
 * unit (string indices) and nothing else. */
static bool value_type_ok(const uint8_t *p, size_t l)
{
    Perftools__Profiles__ValueType *vt = perftools__profiles__value_type__unpack(NULL, l, p);
    if (!vt)
        return false;
    bool ok = vt->type > 0 && vt->unit > 0 && vt->type != vt->unit && vt->type < 100000 &&
              vt->unit < 100000 && vt->base.n_unknown_fields == 0;
    perftools__profiles__value_type__free_unpacked(vt, NULL);
    return ok;
}

/* The raw (inflated) head: its first fields are sample types (field 1) and
 * the period type (11), messages protobuf-c reads as ValueTypes, and the
 * period, time and duration (12, 9, 10: varints), in any order (Go's
 * runtime/pprof writes the period first, google/pprof the sample types),
 * with at least one sample type; then, if in view, a sample, mapping,
 * location, function or string (fields 2 to 6). */
static bool raw_head_ok(const uint8_t *p, size_t len)
{
    size_t pos = 0;
    int types = 0, fields = 0;
    while (pos < len && fields < 16) {
        uint8_t tag = p[pos];
        if (tag == 0x0a || tag == 0x5a) {
            size_t l;
            int n = small_varint(p + pos + 1, len - pos - 1, &l);
            if (n < 0 || l < 4 || l > 40 || pos + 1 + (size_t)n + l > len ||
                !value_type_ok(p + pos + 1 + n, l))
                return false;
            types += tag == 0x0a;
            pos += 1 + (size_t)n + l;
        } else if (tag == 0x60 || tag == 0x48 || tag == 0x50) {
            size_t k = pos + 1;
            while (k < len && k < pos + 11 && (p[k] & 0x80))
                k++;
            if (k >= len || k >= pos + 11)
                return false;
            pos = k + 1;
        } else if (tag >= 0x12 && tag <= 0x32 && (tag & 7) == 2) {
            return types > 0;
        } else {
            return false;
        }
        fields++;
    }
    return types > 0 && fields >= 2;
}

bool gopprof_head_is_profile(const uint8_t *head, size_t len)
{
    if (!hf_is_gzip(head, len))
        return raw_head_ok(head, len);
    /* Inflate what the head holds (it ends early: that is expected). */
    uint8_t out[512];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return false;
    z.next_in = (Bytef *)head;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = sizeof out;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    size_t got = sizeof out - z.avail_out;
    inflateEnd(&z);
    /* A small file's head is all of it: a bad check value (CRC or length)
     * at its end is damage that gopprof_read reports, not another format. */
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR && !(rc == Z_DATA_ERROR && got))
        return false;
    return raw_head_ok(out, got);
}

/* What reading a profile may take: the inflated bytes at most
 * GOP_PER_FILE_BYTE times the file's size, and protobuf-c's structures at
 * most GOP_PER_RAW_BYTE times the inflated size and GOP_PER_FILE_BYTE times
 * the file's, GOP_MIN_BUDGET whatever the sizes.  A real profile is far
 * inside: gzip gives it 3 to 10 times, protobuf-c's structures take 5 to
 * 15 times the encoded bytes.  A crafted one (empty string table entries:
 * 2 bytes each, 40 once unpacked; a gzip ratio of 1000) is refused. */
#define GOP_MIN_BUDGET ((size_t)64 << 20)
#define GOP_PER_FILE_BYTE 512
#define GOP_PER_RAW_BYTE 32

static size_t budget_of(size_t file_len, size_t raw_len)
{
    size_t b = MIN(file_len, SIZE_MAX / GOP_PER_FILE_BYTE) * GOP_PER_FILE_BYTE;
    if (raw_len)
        b = MIN(b, MIN(raw_len, SIZE_MAX / GOP_PER_RAW_BYTE) * GOP_PER_RAW_BYTE);
    return MAX(b, GOP_MIN_BUDGET);
}

/* protobuf-c's allocations, counted as malloc takes them (16 bytes of
 * overhead, 32 at least), refused past the budget: unpack then fails. */
typedef struct {
    size_t used, budget;
    bool over;
} counted;

static void *counted_alloc(void *ud, size_t size)
{
    counted *c = ud;
    size_t cost = MAX((size + 16 + 15) / 16 * 16, 32);
    if (size > c->budget || cost > c->budget - c->used) {
        c->over = true;
        return NULL;
    }
    c->used += cost;
    return malloc(size);
}

static void counted_free(void *ud, void *p)
{
    free(p); /* the budget counts what was asked in all, not what is held */
}

Perftools__Profiles__Profile *gopprof_read(const uint8_t *data, size_t len, bool *gzipped,
                                           GError **err)
{
    GByteArray *raw = NULL;
    size_t file_len = len;
    *gzipped = hf_is_gzip(data, len);
    if (*gzipped) {
        bool truncated;
        size_t cap = MIN(HF_GUNZIP_MAX, budget_of(len, 0));
        raw = hf_gunzip(data, len, cap, &truncated, err);
        if (!raw)
            return NULL;
        if (truncated) {
            g_byte_array_free(raw, TRUE);
            g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT,
                        "gzip stream ends early (the file is cut): not read");
            return NULL;
        }
        data = raw->data;
        len = raw->len;
    }
    counted c = {0, budget_of(file_len, len), false};
    ProtobufCAllocator a = {counted_alloc, counted_free, &c};
    Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(&a, len, data);
    if (raw)
        g_byte_array_free(raw, TRUE);
    if (!p && c.over)
        g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT,
                    "reading the profile would take more than %zu MiB, far more than a "
                    "profile of this size needs (%zu bytes inflated): not read",
                    c.budget >> 20, len);
    else if (!p)
        g_set_error(err, HF_ERROR, HF_ERROR_CORRUPT,
                    "not a readable profile.proto message (damaged or cut)");
    return p;
}

void gopprof_profile_free(Perftools__Profiles__Profile *p)
{
    /* counted_alloc took it with malloc: protobuf-c's default free fits */
    if (p)
        perftools__profiles__profile__free_unpacked(p, NULL);
}
