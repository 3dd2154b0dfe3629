/*
 * symbolize.c - memory map lines, and PCs to names with libdw (see
 * symbolize.h for the trust rule and the name forms).
 *
 * Address arithmetic: a PC in a mapping is at file offset
 * fo = pc - start + offset; the PT_LOAD segment holding fo gives the ELF
 * virtual address vaddr = fo - p_offset + p_vaddr, and the library is
 * reported to libdwfl at base 0, so its address space is vaddr + bias
 * (bias 0 for ET_DYN at base 0 and for ET_EXEC).  This needs no knowledge
 * of where the process loaded the library beyond the map line itself.
 */
#include "decoders/pprof/symbolize.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory map lines ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static bool hex_num(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    if (!g_ascii_isxdigit(*p))
        return false;
    char *end;
    *v = g_ascii_strtoull(p, &end, 16);
    *pp = end;
    return true;
}

/* Copies path (trimmed), expanding "$name" from vars. */
static char *expand_path(const char *p, GHashTable *vars)
{
    p = skip_ws(p);
    GString *s = g_string_new(NULL);
    while (*p) {
        if (*p == '$' && vars) {
            const char *q = p + 1;
            while (g_ascii_isalnum(*q) || *q == '_')
                q++;
            char *name = g_strndup(p + 1, q - p - 1);
            const char *val = g_hash_table_lookup(vars, name);
            g_free(name);
            if (val) {
                g_string_append(s, val);
                p = q;
                continue;
            }
        }
        g_string_append_c(s, *p++);
    }
    while (s->len && g_ascii_isspace(s->str[s->len - 1]))
        g_string_truncate(s, s->len - 1);
    if (!s->len) {
        g_string_free(s, TRUE);
        return NULL;
    }
    return g_string_free(s, FALSE);
}

bool hf_mapping_parse(const char *line, GHashTable *vars, hf_mapping *m)
{
    memset(m, 0, sizeof *m);
    const char *p = skip_ws(line);
    if (!hex_num(&p, &m->start) || *p != '-')
        return false;
    p++;
    if (!hex_num(&p, &m->end) || m->end < m->start)
        return false;
    if (*p == ':') { /* gperftools DumpAddressMap: "start-end: path" */
        m->path = expand_path(p + 1, vars);
        return true;
    }
    /* /proc/PID/maps: start-end perms offset dev inode [path] */
    p = skip_ws(p);
    size_t i = 0;
    while (*p && *p != ' ' && *p != '\t' && i < 4)
        m->perms[i++] = *p++;
    m->perms[i] = 0;
    if (i != 4 || (*p != ' ' && *p != '\t'))
        return false;
    p = skip_ws(p);
    if (!hex_num(&p, &m->offset))
        return false;
    p = skip_ws(p);
    while (*p && *p != ' ' && *p != '\t') /* device */
        p++;
    p = skip_ws(p);
    if (!g_ascii_isdigit(*p))
        return false;
    char *end;
    m->inode = g_ascii_strtoull(p, &end, 10);
    m->path = expand_path(end, NULL);
    m->has_offset = true;
    return true;
}

int64_t hf_mapping_find(const hf_mapping *maps, size_t n, uint64_t pc)
{
    for (size_t i = 0; i < n; i++)
        if (pc >= maps[i].start && pc < maps[i].end)
            return (int64_t)i;
    return -1;
}

/* ---- libraries ---- */

typedef struct {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Elf *elf;
    GElf_Addr bias;
} lib;

struct hf_symbolizer {
    GMutex lock;
    GHashTable *libs;   /* path -> lib * (NULL value: not usable) */
    GStringChunk *chunk; /* names handed out */
    unsigned opened, usable;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void lib_free(gpointer p)
{
    lib *l = p;
    if (l) {
        dwfl_end(l->dwfl);
        g_free(l);
    }
}

hf_symbolizer *hf_sym_new(void)
{
    hf_symbolizer *s = g_new0(hf_symbolizer, 1);
    g_mutex_init(&s->lock);
    s->libs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, lib_free);
    s->chunk = g_string_chunk_new(4096);
    return s;
}

void hf_sym_free(hf_symbolizer *s)
{
    if (!s)
        return;
    g_hash_table_destroy(s->libs);
    g_string_chunk_free(s->chunk);
    g_mutex_clear(&s->lock);
    g_free(s);
}

void hf_sym_stats(hf_symbolizer *s, unsigned *opened, unsigned *usable)
{
    g_mutex_lock(&s->lock);
    *opened = s->opened;
    *usable = s->usable;
    g_mutex_unlock(&s->lock);
}

static lib *lib_open(const char *path)
{
    if (path[0] != '/' || !g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return NULL;
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return NULL;
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, -1, 0, false);
    dwfl_report_end(dwfl, NULL, NULL);
    GElf_Addr bias = 0;
    Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
    if (!elf) {
        dwfl_end(dwfl);
        return NULL;
    }
    lib *l = g_new0(lib, 1);
    l->dwfl = dwfl;
    l->mod = mod;
    l->elf = elf;
    l->bias = bias;
    return l;
}

/* The library for path, opened on first use; NULL when not usable. */
static lib *lib_get(hf_symbolizer *s, const char *path)
{
    gpointer key, value;
    if (g_hash_table_lookup_extended(s->libs, path, &key, &value))
        return value;
    lib *l = lib_open(path);
    s->opened++;
    if (l)
        s->usable++;
    g_hash_table_insert(s->libs, g_strdup(path), l);
    return l;
}

#define MAX_ALIGN 0x10000u /* largest page size the offset check allows for */

/* The trust rule of symbolize.h for mapping m. */
static bool mapping_matches(Elf *elf, const hf_mapping *m)
{
    if (!m->has_offset)
        return true;
    if (!strchr(m->perms, 'x'))
        return false;
    size_t n;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    uint64_t len = m->end - m->start;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        if (ph.p_offset < m->offset || ph.p_offset - m->offset >= MAX_ALIGN)
            continue;
        uint64_t need = ph.p_offset - m->offset + ph.p_filesz;
        if (len >= need && len < need + MAX_ALIGN)
            return true;
    }
    return false;
}

/* ELF virtual address of file offset fo, false when no segment holds it. */
static bool file_to_vaddr(Elf *elf, uint64_t fo, uint64_t *vaddr)
{
    size_t n;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (fo >= ph.p_offset && fo < ph.p_offset + ph.p_filesz) {
            *vaddr = fo - ph.p_offset + ph.p_vaddr;
            return true;
        }
    }
    return false;
}

void hf_sym_lookup(hf_symbolizer *s, const hf_mapping *maps, size_t n_maps, uint64_t pc,
                   bool caller, hf_frame_info *out)
{
    memset(out, 0, sizeof *out);
    int64_t mi = hf_mapping_find(maps, n_maps, pc);
    if (mi < 0)
        return;
    const hf_mapping *m = &maps[mi];
    out->lib = m->path;
    out->off = pc - m->start + m->offset;
    if (!m->path || m->path[0] != '/')
        return;
    uint64_t look = caller && pc > m->start ? pc - 1 : pc;
    g_mutex_lock(&s->lock);
    lib *l = lib_get(s, m->path);
    uint64_t vaddr;
    if (l && mapping_matches(l->elf, m) &&
        file_to_vaddr(l->elf, look - m->start + m->offset, &vaddr)) {
        Dwarf_Addr addr = vaddr + l->bias;
        GElf_Off symoff;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(l->mod, addr, &symoff, &sym, NULL, NULL, NULL);
        if (name && *name) {
            /* "__libc_start_main@@GLIBC_2.34": drop the symbol version. */
            size_t n = strcspn(name, "@");
            char *plain = g_strndup(name, n ? n : strlen(name));
            out->func = g_string_chunk_insert_const(s->chunk, plain);
            g_free(plain);
        }
        Dwfl_Line *line = dwfl_module_getsrc(l->mod, addr);
        int lineno = 0;
        const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        if (src && *src && lineno > 0) {
            const char *base = strrchr(src, '/');
            out->file = g_string_chunk_insert_const(s->chunk, base ? base + 1 : src);
            out->line = lineno;
        }
    }
    g_mutex_unlock(&s->lock);
}

/* ---- names ---- */

static void lib_off(GString *out, const hf_frame_info *f)
{
    const char *base = strrchr(f->lib, '/');
    g_string_append_printf(out, "%s+0x%" PRIx64, base ? base + 1 : f->lib, f->off);
}

void hf_frame_full_name(GString *out, const hf_frame_info *f, uint64_t pc)
{
    if (f->func) {
        g_string_append(out, f->func);
        if (f->file)
            g_string_append_printf(out, "(%s:%d)", f->file, f->line);
    } else if (f->lib && *f->lib) {
        lib_off(out, f);
    } else {
        g_string_append_printf(out, "0x%" PRIx64, pc);
    }
}

void hf_frame_short_name(GString *out, const hf_frame_info *f, uint64_t pc)
{
    if (f->func)
        g_string_append(out, f->func);
    else if (f->lib && *f->lib)
        lib_off(out, f);
    else
        g_string_append_printf(out, "0x%" PRIx64, pc);
}

bool hf_frame_is_allocator(const char *func)
{
    static const char *const names[] = {
        "malloc", "calloc", "realloc", "free", "cfree", "memalign", "posix_memalign",
        "aligned_alloc", "valloc", "pvalloc", "reallocarray", "__libc_malloc",
        "__libc_calloc", "__libc_realloc", "__libc_memalign", "do_malloc",
        "operator new", "operator new[]", NULL,
    };
    if (!func)
        return false;
    for (size_t i = 0; names[i]; i++)
        if (strcmp(func, names[i]) == 0)
            return true;
    /* tcmalloc's entry points, and the mangled operator new / new[]. */
    return g_str_has_prefix(func, "tc_") || g_str_has_prefix(func, "_Znw") ||
           g_str_has_prefix(func, "_Zna") || g_str_has_prefix(func, "tcmalloc::") ||
           strstr(func, "TCMalloc") != NULL;
}
