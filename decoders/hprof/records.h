/*
 * records.h - HPROF's top-level records: their tags, big-endian readers
 * and one parser per record body.  Both decoders that meet HPROF records
 * include it: the HPROF binary decoder (hprof.h includes this file) and
 * BMD, whose legacy records carry HPROF bodies (bmd/legacy.c, bmd/scan.c).
 * The parsers live in hprof/read.c.  Record layouts: docs/formats.md.
 *
 * The parsers are pure functions of (body pointer, body length, id size):
 * they never read outside [b, b + len), fill *out and return true, or
 * return false when the body is too short for what it declares.  Pointers
 * in *out point into the body.  Nothing assumes the body lies inside an
 * HPROF file.  Thread-safe.
 */
#ifndef HF_HPROF_RECORDS_H
#define HF_HPROF_RECORDS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Top-level record tags. */
enum {
    HPROF_STRING = 0x01, HPROF_LOAD_CLASS = 0x02, HPROF_UNLOAD_CLASS = 0x03,
    HPROF_STACK_FRAME = 0x04, HPROF_STACK_TRACE = 0x05, HPROF_ALLOC_SITES = 0x06,
    HPROF_HEAP_SUMMARY = 0x07, HPROF_START_THREAD = 0x0A, HPROF_END_THREAD = 0x0B,
    HPROF_HEAP_DUMP = 0x0C, HPROF_CPU_SAMPLES = 0x0D, HPROF_CONTROL_SETTINGS = 0x0E,
    HPROF_HEAP_DUMP_SEGMENT = 0x1C, HPROF_HEAP_DUMP_END = 0x2C,
};

/* Name of a top-level record tag as info files show it ("load class"),
 * NULL for a tag HPROF does not define. */
const char *hprof_record_name(uint32_t tag);

/* ---- big-endian readers (no bounds checks: callers check lengths) ---- */

static inline uint16_t hprof_u2(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t hprof_u4(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
static inline uint64_t hprof_u8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
static inline uint64_t hprof_id(const uint8_t *p, unsigned idsz)
{
    return idsz == 8 ? hprof_u8(p) : hprof_u4(p);
}

/* ---- top-level record bodies ---- */

typedef struct {
    uint64_t id;
    const uint8_t *text; /* modified UTF-8, not NUL-terminated */
    uint32_t len;
} hprof_string;
bool hprof_parse_string(const uint8_t *b, size_t len, unsigned idsz, hprof_string *out);

typedef struct {
    uint32_t serial, trace;
    uint64_t class_id, name_id;
} hprof_load_class;
G_STATIC_ASSERT(offsetof(hprof_load_class, serial) == 0); /* search.h's serial helpers */
bool hprof_parse_load_class(const uint8_t *b, size_t len, unsigned idsz, hprof_load_class *out);

typedef struct {
    uint64_t id, method, sig, source;
    uint32_t class_serial;
    int32_t line;
} hprof_frame;
bool hprof_parse_stack_frame(const uint8_t *b, size_t len, unsigned idsz, hprof_frame *out);

typedef struct {
    uint32_t serial, thread, n_frames;
    const uint8_t *frames; /* n_frames ids: hprof_id(frames + i * idsz, idsz) */
} hprof_trace;
bool hprof_parse_stack_trace(const uint8_t *b, size_t len, unsigned idsz, hprof_trace *out);

typedef struct {
    uint16_t flags; /* 0x1 incremental, 0x2 sorted by allocation, 0x4 forced GC */
    float cutoff;
    uint32_t live_bytes, live_instances;
    uint64_t alloc_bytes, alloc_instances;
    uint32_t n_sites;
    const uint8_t *sites; /* hprof_site_at() */
} hprof_sites;
typedef struct {
    uint8_t array; /* 0 not an array, else the element's basic type */
    uint32_t class_serial, trace, live_bytes, live_instances, alloc_bytes, alloc_instances;
} hprof_site;
bool hprof_parse_alloc_sites(const uint8_t *b, size_t len, unsigned idsz, hprof_sites *out);
void hprof_site_at(const hprof_sites *s, uint32_t i, hprof_site *out);

typedef struct {
    uint32_t live_bytes, live_instances;
    uint64_t alloc_bytes, alloc_instances;
} hprof_heap_summary;
bool hprof_parse_heap_summary(const uint8_t *b, size_t len, unsigned idsz,
                              hprof_heap_summary *out);

typedef struct {
    uint32_t serial, trace;
    uint64_t obj, name, group, parent;
} hprof_thread;
bool hprof_parse_start_thread(const uint8_t *b, size_t len, unsigned idsz, hprof_thread *out);

/* UNLOAD CLASS (class serial) and END THREAD (thread serial): one u4. */
bool hprof_parse_serial(const uint8_t *b, size_t len, unsigned idsz, uint32_t *out);

typedef struct {
    uint32_t total, n;
    const uint8_t *samples; /* n x {u4 count, u4 trace serial} */
} hprof_cpu_samples;
bool hprof_parse_cpu_samples(const uint8_t *b, size_t len, unsigned idsz, hprof_cpu_samples *out);

typedef struct {
    uint32_t flags; /* 0x1 alloc traces, 0x2 cpu sampling */
    uint16_t depth;
} hprof_control;
bool hprof_parse_control(const uint8_t *b, size_t len, unsigned idsz, hprof_control *out);

/* How a top-level record's body holds up against its tag's parser above:
 * the check HPROF's scan and BMD's legacy records share.  The heap dump
 * records' bodies are sub-records, checked as they are scanned: OK here. */
typedef enum { HPROF_BODY_OK, HPROF_BODY_SHORT, HPROF_BODY_UNKNOWN_TAG } hprof_body;
hprof_body hprof_check_body(uint8_t tag, const uint8_t *b, size_t len, unsigned idsz);

#endif
