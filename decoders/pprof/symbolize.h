/*
 * symbolize.h - naming program counters: "library+offset" from a memory
 * map, and function and file:line from the library's ELF symbols and DWARF
 * (elfutils' libdw), when that library exists on this machine.
 *
 * A profile's memory map is a list of hf_mapping (from /proc/PID/maps lines
 * or gperftools' "--- Memory map:" lines).  hf_symbolizer opens each
 * library the first time a PC in it is named, once, and keeps it open; so
 * nothing is read at mount time, only when a view that shows names is
 * rendered.
 *
 * A library is trusted only when it plausibly is the file that was mapped:
 * it must be an ELF file, and for /proc/maps lines (which give the file
 * offset of each executable mapping) some executable PT_LOAD segment must
 * start at that page-aligned offset with a size that fits the mapping.  A
 * different build of the library almost never passes, so names are not
 * made up from the wrong file; such PCs stay "library+offset".
 *
 * Ownership: strings in hf_frame_info belong to the symbolizer and live as
 * long as it.  Mappings (and their paths) belong to the caller and must
 * outlive the lookups.
 *
 * Thread safety: hf_sym_lookup may be called from several threads at once
 * (one internal mutex: libdw handles are not shared between threads).
 */
#ifndef HF_SYMBOLIZE_H
#define HF_SYMBOLIZE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t start, end; /* [start, end) */
    uint64_t offset;     /* file offset of start (0 when the line gives none) */
    uint64_t inode;      /* 0 when unknown */
    char perms[5];       /* "r-xp"; "" when the line gives none */
    bool has_offset;     /* a /proc/maps line (perms, offset, inode given) */
    const char *path;    /* NULL or "" for anonymous mappings */
} hf_mapping;

/* Parses one line of either memory map form.  `vars` (may be NULL) holds
 * "name=value" definitions seen so far in a "--- Memory map:" section, used
 * to expand "$name" in paths.  Returns false for a line that is neither.
 * On success m->path is a newly allocated string (g_free) or NULL. */
bool hf_mapping_parse(const char *line, GHashTable *vars, hf_mapping *m);

/* Index of the mapping that holds pc, -1 when none.  maps need not be
 * sorted. */
int64_t hf_mapping_find(const hf_mapping *maps, size_t n, uint64_t pc);

typedef struct {
    const char *lib;  /* mapping's path, NULL when no mapping holds the PC */
    uint64_t off;     /* PC - start + file offset */
    const char *func; /* NULL when unknown */
    const char *file; /* source file (base name), NULL when unknown */
    int line;         /* 0 when unknown */
} hf_frame_info;

typedef struct hf_symbolizer hf_symbolizer;

hf_symbolizer *hf_sym_new(void);
void hf_sym_free(hf_symbolizer *s);

/* Names pc.  `caller`: pc is a return address (every frame but the leaf),
 * so the call instruction at pc - 1 is looked up, as pprof does. */
void hf_sym_lookup(hf_symbolizer *s, const hf_mapping *maps, size_t n_maps, uint64_t pc,
                   bool caller, hf_frame_info *out);

/* How many libraries were opened, and how many of them gave names. */
void hf_sym_stats(hf_symbolizer *s, unsigned *opened, unsigned *usable);

/* Frame name forms used by the views:
 *  full:  "func(file.c:12)", "func", "libbase.so+0x1a2b" or "0x7f..."
 *  short: "func", "libbase.so+0x1a2b" or "0x7f..." */
void hf_frame_full_name(GString *out, const hf_frame_info *f, uint64_t pc);
void hf_frame_short_name(GString *out, const hf_frame_info *f, uint64_t pc);
/* True for allocator functions pprof hides (malloc, operator new, tc_*...). */
bool hf_frame_is_allocator(const char *func);

#endif
