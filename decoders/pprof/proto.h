/*
 * proto.h - heap.pb.gz: the profile of an hf_pprof builder in pprof's own
 * format (gzipped protobuf, profile.proto), for `go tool pprof` and the
 * tools that read it (Pyroscope, speedscope, Parca); and the gzip helpers
 * the Go profile decoder (decoders/gopprof/) shares.
 *
 * The profile is the same set of samples as heap.pprof (pprof.h), from the
 * same builder:
 *  - sample types, in Go's order: alloc_objects/count, alloc_space/bytes,
 *    inuse_objects/count, inuse_space/bytes; default_sample_type
 *    inuse_space (what go tool pprof shows without -sample_index);
 *  - frame name k (hf_pprof_frame) is Function k+1 and Location k+1, at the
 *    synthetic address heap.pprof gives it (0x100000 + 16 k), in Mapping 1
 *    (the builder's binary, has_functions set: nothing to symbolize);
 *    names are written as heap.pprof writes them (hf_pprof_append_symbol);
 *  - values unsampled, as google-pprof computes them from heap.pprof: a
 *    builder whose header kind is heap_v2/N or heapz_v2/N (a gperftools
 *    file kept raw) has each sample scaled by 1/(1 - exp(-avg/N)), as
 *    google/pprof scales them, truncated; period_type space/bytes, period
 *    N.  Other kinds are written as they are, period 0.
 *  - a sample with no frames (kept raw lines only) is left out, as
 *    google-pprof ignores such a line in heap.pprof.
 * So `go tool pprof -top heap.pb.gz` and `google-pprof --text heap.pprof`
 * give the same totals (up to the fraction google-pprof keeps of scaled
 * values).
 *
 * Determinism: no time, no host name; gzip with a fixed header (mtime 0,
 * no name, OS 255), so every render gives the same bytes (fs/views.c may
 * render a view more than once).
 *
 * Thread safety: the builder is only read; any number of renders may run
 * at once.
 */
#ifndef HF_PPROF_PROTO_H
#define HF_PPROF_PROTO_H

#include "decoders/pprof/pprof.h"

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* heap.pb.gz of p: one item, the whole file (budget is ignored). */
uint64_t hf_pprof_render_proto(const hf_pprof *p, uint64_t first, GString *out, size_t budget);

/* The encoded profile (not gzipped), for tests: g_free it. */
uint8_t *hf_pprof_encode(const hf_pprof *p, size_t *len);

/* Appends data[0..len) gzipped (deterministic header) to out. */
void hf_gzip_append(const uint8_t *data, size_t len, GString *out);

/* True when data starts with the gzip magic (1f 8b 08). */
bool hf_is_gzip(const uint8_t *data, size_t len);

/* Inflates a gzip stream (several members are read one after the other)
 * into a new array.  At most `cap` bytes are produced: beyond that (a
 * gzip bomb) the result is NULL with *err saying so; NULL too for a
 * damaged stream.  A stream that ends early gives what was inflated and
 * *truncated = true. */
GByteArray *hf_gunzip(const uint8_t *data, size_t len, size_t cap, bool *truncated,
                      GError **err);

/* Default cap of hf_gunzip for profiles: 1 GiB. */
#define HF_GUNZIP_MAX ((size_t)1 << 30)

#endif
