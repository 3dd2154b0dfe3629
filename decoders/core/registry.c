/*
 * registry.c - the list of decoders, and opening a file by its content.
 *
 * Detection looks at the first bytes only, in table order; the first
 * decoder that claims the file indexes it.  A file nobody claims, an empty
 * file, a directory, a missing or unreadable file all give one clear line.
 */
#include "decoders/core/model.h"
#include "decoders/core/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each format folder defines hf_decoder_FOLDER in its decoder.c. */
extern const hf_decoder hf_decoder_gperf;
extern const hf_decoder hf_decoder_hproftxt;
extern const hf_decoder hf_decoder_hprof;
extern const hf_decoder hf_decoder_oemp;
extern const hf_decoder hf_decoder_gopprof;
extern const hf_decoder hf_decoder_v8;
extern const hf_decoder hf_decoder_bmd;

/* One line per decoder.  Order matters only where two could claim a file. */
static const hf_decoder *const decoders[] = {
    &hf_decoder_gperf,
    &hf_decoder_hproftxt,
    &hf_decoder_hprof,
    &hf_decoder_oemp,
    &hf_decoder_v8, /* before gopprof: both read gzip */
    &hf_decoder_gopprof,
    &hf_decoder_bmd,
    NULL,
};

const hf_decoder *const *hf_decoders(void)
{
    return decoders;
}

/* What users call each format, in the order messages list them (the
 * decoders' own names, "hprof", "gopprof", are info's format: key, for
 * tools). */
static const struct {
    const hf_decoder *dec;
    const char *name;
} format_names[] = {
    {&hf_decoder_hprof, "HPROF heap dump"},
    {&hf_decoder_hproftxt, "HPROF text (java.hprof.txt)"},
    {&hf_decoder_bmd, "BMD"},
    {&hf_decoder_oemp, "OpenEdge memory profile (.oemp)"},
    {&hf_decoder_gperf, "gperftools heap profile"},
    {&hf_decoder_gopprof, "Go pprof (profile.proto)"},
    {&hf_decoder_v8, "V8 heap snapshot (.heapsnapshot)"},
};
G_STATIC_ASSERT(G_N_ELEMENTS(format_names) == G_N_ELEMENTS(decoders) - 1);


const char *hf_format_label(const char *format)
{
    for (size_t i = 0; i < G_N_ELEMENTS(format_names); i++)
        if (strcmp(format_names[i].dec->format, format) == 0)
            return format_names[i].name;
    return format;
}

void hf_info_format(GString *out, const char *format)
{
    g_string_append_printf(out, "format: %s\nformat name: %s\n", format, hf_format_label(format));
}

#define HEAD_LEN 4096

static const hf_decoder *detect(const uint8_t *head, size_t len)
{
    for (size_t i = 0; decoders[i]; i++)
        if (decoders[i]->detect(head, len))
            return decoders[i];
    return NULL;
}

/* Why the file open as fd (path) cannot be mapped as a dump; NULL if it can. */
static const char *unmappable(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return g_strerror(errno);
    if (S_ISDIR(st.st_mode))
        return "is a directory, not a dump file";
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    if (st.st_size == 0)
        return "empty file";
    return NULL;
}

/* Maps `path` after the checks that give the clearest messages, all in
 * the one style "PATH: why" (GLib's own say "Failed to open file"). */
static GMappedFile *map_file(const char *path, GError **err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s: %s", path, g_strerror(errno));
        return NULL;
    }
    const char *why = unmappable(fd);
    GMappedFile *map = why ? NULL : g_mapped_file_new_from_fd(fd, FALSE, NULL);
    if (!map)
        g_set_error(err, HF_ERROR, HF_ERROR_OPEN, "%s: %s", path,
                    why ? why : "cannot be mapped into memory");
    close(fd);
    return map;
}

static const hf_decoder *detect_mapped(const char *path, GMappedFile *map, GError **err)
{
    const uint8_t *data = (const uint8_t *)g_mapped_file_get_contents(map);
    size_t len = g_mapped_file_get_length(map);
    const hf_decoder *dec = detect(data, len < HEAD_LEN ? len : HEAD_LEN);
    if (!dec) {
        GString *known = g_string_new(NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(format_names); i++)
            g_string_append_printf(known, "%s%s", i ? ", " : "", format_names[i].name);
        g_set_error(err, HF_ERROR, HF_ERROR_FORMAT, "%s: not a format heapfs knows (%s)", path,
                    known->str);
        g_string_free(known, TRUE);
    }
    return dec;
}

/* What every open does after the decoder's: the options that apply to
 * any dump (the retained level: only through hf_dump.reach). */
static hf_dump *opened(hf_dump *d, const hf_open_opts *opts)
{
    if (d && opts)
        d->reach = opts->reach;
    return d;
}

hf_dump *hf_open(const char *path, const hf_open_opts *opts, GError **err)
{
    GMappedFile *map = map_file(path, err);
    if (!map)
        return NULL;
    hf_dump *d = NULL;
    const hf_decoder *dec = detect_mapped(path, map, err);
    if (dec)
        d = opened(dec->open(path, map, opts, err), opts);
    g_mapped_file_unref(map);
    return d;
}

/* The decoder of the file at path, NULL with *err. */
static const hf_decoder *detect_file(const char *path, GError **err)
{
    GMappedFile *map = map_file(path, err);
    const hf_decoder *dec = map ? detect_mapped(path, map, err) : NULL;
    if (map)
        g_mapped_file_unref(map);
    return dec;
}

const char *hf_detect(const char *path, GError **err)
{
    const hf_decoder *dec = detect_file(path, err);
    return dec ? dec->format : NULL;
}

/* The decoder of every file, in order (false with *err naming the file). */
static bool detect_all(const char *const *paths, int n, const hf_decoder **decs, GError **err)
{
    for (int i = 0; i < n; i++)
        if (!(decs[i] = detect_file(paths[i], err)))
            return false;
    return true;
}

/* Appends d to out unless the open failed (NULL). */
static bool append_opened(GPtrArray *out, hf_dump *d)
{
    if (d)
        g_ptr_array_add(out, d);
    return d != NULL;
}

bool hf_open_files(const char *const *paths, int n, const hf_open_opts *opts, GPtrArray *out,
                   GError **err)
{
    if (n == 1)
        return append_opened(out, hf_open(paths[0], opts, err));
    const hf_decoder **decs = g_new(const hf_decoder *, n);
    bool ok = detect_all(paths, n, decs, err);
    const hf_decoder *series = ok && decs[0]->open_series ? decs[0] : NULL;
    for (int i = 1; ok && i < n; i++)
        if ((decs[i]->open_series || series) && decs[i] != decs[0]) {
            /* A series merges its files' stacks; other formats stack dumps. */
            g_set_error(err, HF_ERROR, HF_ERROR_FORMAT,
                        "%s: cannot be mounted with %s (%s and %s: profiles mount only with "
                        "profiles of their format)",
                        paths[i], paths[0], hf_format_label(decs[i]->format), hf_format_label(decs[0]->format));
            ok = false;
        }
    g_free(decs);
    if (!ok)
        return false;
    if (series) /* the files are detected: straight to the decoder */
        return append_opened(out, opened(series->open_series(paths, n, opts, err), opts));
    hf_dump **got = g_new0(hf_dump *, n);
    for (int i = 0; ok && i < n; i++)
        ok = (got[i] = hf_open(paths[i], opts, err)) != NULL;
    for (int i = 0; i < n; i++)
        if (ok)
            g_ptr_array_add(out, got[i]);
        else if (got[i])
            hf_dump_close(got[i]);
    g_free(got);
    return ok;
}
