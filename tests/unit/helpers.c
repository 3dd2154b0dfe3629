/*
 * helpers.c - see helpers.h.
 */
#include "tests/unit/helpers.h"

#include "decoders/bmd/bmd.h"
#include "decoders/core/workmem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* ---- rendering ---- */

static GString *render_string(hf_dump *d, hf_render_fn fn, const hf_view *v, size_t budget)
{
    if (!fn)
        fail_msg("view %u/%" G_GUINT64_FORMAT "/%u has no renderer", v->snap,
                 (guint64)v->index, v->file);
    GString *s = g_string_new(NULL);
    uint64_t first = 0;
    for (;;) {
        uint64_t next = fn(d, v, first, s, budget);
        if (next == HF_DONE)
            break;
        /* Every call must make progress, else fs/ would loop forever. */
        if (next <= first)
            fail_msg("view %u/%" G_GUINT64_FORMAT "/%u: rendering from item %" G_GUINT64_FORMAT
                     " returns item %" G_GUINT64_FORMAT " (budget %zu)",
                     v->snap, (guint64)v->index, v->file, (guint64)first, (guint64)next,
                     budget);
        first = next;
    }
    return s;
}

char *th_render(hf_dump *d, hf_render_fn fn, hf_view v, size_t budget)
{
    return g_string_free(render_string(d, fn, &v, budget), FALSE);
}

char *th_render_chunked(hf_dump *d, hf_render_fn fn, hf_view v, size_t budget)
{
    GString *whole = render_string(d, fn, &v, SIZE_MAX);
    if (budget != SIZE_MAX) {
        GString *pieces = render_string(d, fn, &v, budget);
        if (pieces->len != whole->len || memcmp(pieces->str, whole->str, whole->len) != 0) {
            size_t at = 0;
            while (at < whole->len && at < pieces->len && whole->str[at] == pieces->str[at])
                at++;
            size_t from = at > 40 ? at - 40 : 0;
            fail_msg("view %u/%" G_GUINT64_FORMAT "/%u: in chunks of %zu it differs from the "
                     "whole at byte %zu (%zu bytes whole, %zu in chunks)\n--- whole ---\n%.80s\n"
                     "--- in chunks ---\n%.80s",
                     v.snap, (guint64)v.index, v.file, budget, at, (size_t)whole->len,
                     (size_t)pieces->len, whole->str + MIN(from, whole->len),
                     pieces->str + MIN(from, pieces->len));
        }
        g_string_free(pieces, TRUE);
    }
    return g_string_free(whole, FALSE);
}

static size_t budget = SIZE_MAX;

void th_set_budget(size_t b)
{
    budget = b;
}

size_t th_budget(void)
{
    return budget;
}

static char *render_by_budget(hf_dump *d, hf_render_fn fn, hf_view v)
{
    return th_render_chunked(d, fn, v, budget);
}

/* ---- files by name ---- */

uint32_t th_n_files(const hf_file *files)
{
    uint32_t n = 0;
    while (files && files[n].name)
        n++;
    return n;
}

int th_file_index(const hf_file *files, const char *name)
{
    for (uint32_t f = 0, n = th_n_files(files); f < n; f++)
        if (strcmp(files[f].name, name) == 0)
            return (int)f;
    return -1;
}

static bool file_present(hf_dump *d, const hf_file *files, uint32_t f, uint32_t s,
                         uint64_t index)
{
    return !files[f].has || files[f].has(d, s, index);
}

bool th_has_file(hf_dump *d, const hf_file *files, uint32_t s, uint64_t index,
                 const char *name)
{
    int f = th_file_index(files, name);
    return f >= 0 && file_present(d, files, (uint32_t)f, s, index);
}

char *th_file(hf_dump *d, const hf_file *files, uint32_t s, uint64_t index, const char *name)
{
    int f = th_file_index(files, name);
    if (f < 0 || !file_present(d, files, (uint32_t)f, s, index))
        return NULL;
    return render_by_budget(d, files[f].render,
                            (hf_view){.snap = s, .index = index, .file = (uint32_t)f});
}

char *th_snap_file(hf_dump *d, uint32_t s, const char *name)
{
    return th_file(d, d->ops->snapshot.files, s, 0, name);
}

char *th_snap_file_needed(hf_dump *d, uint32_t s, const char *name)
{
    char *text = th_snap_file(d, s, name);
    if (!text)
        fail_msg("snapshot %u has no file %s", s, name);
    return text;
}

char *th_snap_files(hf_dump *d, uint32_t s)
{
    const hf_file *files = d->ops->snapshot.files;
    GString *out = g_string_new(NULL);
    for (uint32_t f = 0, n = th_n_files(files); f < n; f++)
        if (file_present(d, files, f, s, 0))
            g_string_append_printf(out, "%s ", files[f].name);
    return g_string_free(out, FALSE);
}

uint64_t th_object(hf_dump *d, uint32_t s, const char *oname)
{
    int64_t o = d->ops->object_find ? d->ops->object_find(d, s, oname) : -1;
    if (o < 0)
        fail_msg("snapshot %u has no object %s", s, oname);
    return (uint64_t)o;
}

uint64_t th_class(hf_dump *d, uint32_t s, const char *cname)
{
    int64_t c = d->ops->class_find ? d->ops->class_find(d, s, cname) : -1;
    if (c < 0)
        fail_msg("snapshot %u has no class %s", s, cname);
    return (uint64_t)c;
}

char *th_object_file(hf_dump *d, uint32_t s, const char *oname, const char *file)
{
    return th_file(d, d->ops->object.files, s, th_object(d, s, oname), file);
}

char *th_class_file(hf_dump *d, uint32_t s, const char *cname, const char *file)
{
    return th_file(d, d->ops->class_.files, s, th_class(d, s, cname), file);
}

char *th_thread_file(hf_dump *d, uint64_t t, const char *file)
{
    if (!d->ops->n_threads || t >= d->ops->n_threads(d))
        fail_msg("no thread %" G_GUINT64_FORMAT, (guint64)t);
    return th_file(d, d->ops->thread.files, 0, t, file);
}

bool th_object_has(hf_dump *d, uint32_t s, const char *oname, const char *file)
{
    return th_has_file(d, d->ops->object.files, s, th_object(d, s, oname), file);
}

bool th_class_has(hf_dump *d, uint32_t s, const char *cname, const char *file)
{
    return th_has_file(d, d->ops->class_.files, s, th_class(d, s, cname), file);
}

char *th_info(hf_dump *d)
{
    return render_by_budget(d, d->ops->render_info, (hf_view){0});
}

char *th_trace(hf_dump *d, uint64_t t)
{
    if (!d->ops->n_traces || t >= d->ops->n_traces(d))
        fail_msg("no trace %" G_GUINT64_FORMAT, (guint64)t);
    return render_by_budget(d, d->ops->render_trace, (hf_view){.index = t});
}

void th_render_node(hf_dump *d, const hf_file *files, uint32_t s, uint64_t index, size_t b)
{
    for (uint32_t f = 0, n = th_n_files(files); f < n; f++)
        if (file_present(d, files, f, s, index))
            g_free(th_render(d, files[f].render, (hf_view){.snap = s, .index = index, .file = f},
                             b));
}

static void touch_links(hf_dump *d, const hf_link *links, uint32_t s, uint64_t index)
{
    hf_target to;
    for (uint32_t l = 0; links && links[l].name; l++)
        if (links[l].target(d, s, index, &to) && !to.name[0])
            fail_msg("link %s of node %" G_GUINT64_FORMAT " of snapshot %u has an empty target",
                     links[l].name, (guint64)index, s);
}

static void touch_dirs(hf_dump *d, const hf_linkdir *dirs, uint32_t s, uint64_t index)
{
    for (uint32_t k = 0; dirs && dirs[k].name; k++) {
        if (dirs[k].has && !dirs[k].has(d, s, index))
            continue;
        for (uint32_t slot = 0; slot < 64; slot++) {
            char name[HF_NAME_MAX];
            hf_target to;
            hf_ref_status st = dirs[k].entry(d, s, index, slot, name, &to);
            if (st == HF_REF_END)
                break;
            if (st == HF_REF_OK)
                (void)dirs[k].find(d, s, index, name);
        }
    }
}

void th_render_everything(hf_dump *d, size_t b)
{
    const hf_dump_ops *ops = d->ops;
    if (ops->render_info)
        g_free(th_render(d, ops->render_info, (hf_view){0}, b));
    if (ops->describe) {
        GString *r = g_string_new(NULL);
        ops->describe(d, r);
        g_string_free(r, TRUE);
    }
    uint64_t nt = ops->n_traces ? ops->n_traces(d) : 0;
    for (uint64_t t = 0; t < nt; t++)
        g_free(th_render(d, ops->render_trace, (hf_view){.index = t}, b));
    uint64_t nth = ops->n_threads ? ops->n_threads(d) : 0;
    for (uint64_t t = 0; t < nth; t++)
        th_render_node(d, ops->thread.files, 0, t, b);
    for (uint32_t s = 0, ns = ops->n_snapshots(d); s < ns; s++) {
        th_render_node(d, ops->snapshot.files, s, 0, b);
        uint64_t nc = ops->n_classes ? ops->n_classes(d, s) : 0;
        for (uint64_t c = 0; c < nc; c++) {
            th_render_node(d, ops->class_.files, s, c, b);
            touch_links(d, ops->class_.links, s, c);
        }
        uint64_t no = ops->n_objects ? ops->n_objects(d, s) : 0;
        for (uint64_t o = 0; o < no; o++) {
            th_render_node(d, ops->object.files, s, o, b);
            touch_links(d, ops->object.links, s, o);
            touch_dirs(d, ops->object.dirs, s, o);
        }
    }
}

/* ---- links and link directories ---- */

bool th_link(hf_dump *d, const hf_link *links, const char *name, uint32_t s, uint64_t index,
             hf_target *to)
{
    for (uint32_t l = 0; links && links[l].name; l++)
        if (strcmp(links[l].name, name) == 0)
            return links[l].target(d, s, index, to);
    return false;
}

bool th_object_link(hf_dump *d, uint32_t s, const char *oname, const char *link,
                    hf_target *to)
{
    return th_link(d, d->ops->object.links, link, s, th_object(d, s, oname), to);
}

bool th_class_link(hf_dump *d, uint32_t s, const char *cname, const char *link, hf_target *to)
{
    return th_link(d, d->ops->class_.links, link, s, th_class(d, s, cname), to);
}

static const hf_linkdir *refs_dir(hf_dump *d)
{
    const hf_linkdir *dirs = d->ops->object.dirs;
    for (uint32_t k = 0; dirs && dirs[k].name; k++)
        if (strcmp(dirs[k].name, "refs") == 0)
            return &dirs[k];
    fail_msg("format %s declares no refs/ for objects", d->ops->format);
    return NULL;
}

hf_ref_status th_ref(hf_dump *d, uint32_t s, uint64_t o, uint32_t slot, char name[HF_NAME_MAX],
                     hf_target *to)
{
    hf_ref_status st = refs_dir(d)->entry(d, s, o, slot, name, to);
    if (st == HF_REF_OK && to->kind != HF_TO_OBJECT)
        fail_msg("refs/%s of object %" G_GUINT64_FORMAT " leads to a class", name, (guint64)o);
    return st;
}

int64_t th_ref_find(hf_dump *d, uint32_t s, uint64_t o, const char *name)
{
    return refs_dir(d)->find(d, s, o, name);
}

bool th_has_refs(hf_dump *d, uint32_t s, uint64_t o)
{
    const hf_linkdir *r = refs_dir(d);
    return !r->has || r->has(d, s, o);
}

/* ---- the rest ---- */

char *th_problems(hf_dump *d)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < d->problems->len; i++)
        g_string_append_printf(s, "%s\n", (char *)g_ptr_array_index(d->problems, i));
    return g_string_free(s, FALSE);
}

int th_run_in_ram_and_files(const char *name, const struct CMUnitTest *tests, size_t count)
{
    char *ram = g_strdup_printf("%s, arrays in RAM", name);
    char *files = g_strdup_printf("%s, arrays in files", name);
    int failed = _cmocka_run_group_tests(ram, tests, count, NULL, NULL);
    char *dir = g_dir_make_tmp("heapfs-test.XXXXXX", NULL);
    hf_work *w = hf_work_begin(&(hf_work_opt){HF_WORK_FILE, 0}, dir);
    failed += _cmocka_run_group_tests(files, tests, count, NULL, NULL);
    GString *said = g_string_new(NULL);
    hf_work_end(w, said);
    /* the files had no names: the directory is empty */
    failed += g_rmdir(dir) != 0 || !strstr(said->str, "GiB in files in");
    g_string_free(said, TRUE);
    g_free(dir);
    g_free(ram);
    g_free(files);
    return failed;
}

char *th_write_temp(const void *data, size_t len)
{
    char *path = NULL;
    GError *e = NULL;
    int fd = g_file_open_tmp("heapfs-test-XXXXXX", &path, &e);
    if (fd < 0)
        fail_msg("temporary file: %s", e ? e->message : "?");
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, p + done, len - done);
        if (w <= 0)
            fail_msg("write %s: %s", path, g_strerror(errno));
        done += (size_t)w;
    }
    close(fd);
    return path;
}

char *th_corpus(const char *sub, const char *name)
{
    const char *dir = getenv("CORPUS");
    return g_build_filename(dir ? dir : "tests/corpus", sub, name, NULL);
}

char *th_fixture(const char *name)
{
    return g_build_filename("tests", "fixtures", name, NULL);
}

/* ---- opening bytes ---- */

hf_dump *th_open_temp(const void *data, size_t len, const hf_open_opts *opts, char **path,
                      GError **err)
{
    GError *e = NULL;
    char *p = th_write_temp(data, len);
    hf_dump *d = hf_open(p, opts, err ? err : &e);
    if (!d && !err)
        fail_msg("open: %s", e ? e->message : "?");
    if (path) {
        *path = p;
    } else {
        unlink(p);
        g_free(p);
    }
    return d;
}

void th_close_temp(hf_dump *d, char *path)
{
    hf_dump_close(d);
    unlink(path);
    g_free(path);
}

/* ---- text and problems ---- */

bool th_has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

bool th_has_problem(hf_dump *d, const char *what)
{
    for (guint i = 0; i < d->problems->len; i++)
        if (strstr(g_ptr_array_index(d->problems, i), what))
            return true;
    return false;
}

char *th_object_names(hf_dump *d, uint32_t s)
{
    GString *out = g_string_new(NULL);
    uint64_t n = d->ops->n_objects(d, s);
    for (uint64_t o = 0; o < n; o++) {
        char name[HF_NAME_MAX];
        d->ops->object_name(d, s, o, name);
        g_string_append_printf(out, "%s%s", o ? " " : "", name);
    }
    return g_string_free(out, FALSE);
}

/* ---- BMD files built byte by byte ---- */

GByteArray *th_bmd_start(void)
{
    GByteArray *b = g_byte_array_new();
    th_bmd_varint(b, 1);
    th_bmd_varint(b, 18);
    th_bmd_raw(b, "JAVA PROFILE 1.0.3", 18);
    return b;
}

void th_bmd_u8(GByteArray *b, uint8_t v)
{
    g_byte_array_append(b, &v, 1);
}

void th_bmd_hex(GByteArray *b, const char *hex)
{
    for (size_t i = 0; hex[i] && hex[i + 1]; i += 2) {
        if (hex[i] == ' ') {
            i--;
            continue;
        }
        char t[3] = {hex[i], hex[i + 1], 0};
        th_bmd_u8(b, (uint8_t)strtoul(t, NULL, 16));
    }
}

void th_bmd_varint(GByteArray *b, uint64_t v)
{
    while (v >= 0x80) {
        th_bmd_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    th_bmd_u8(b, (uint8_t)v);
}

void th_bmd_int(GByteArray *b, int32_t v)
{
    th_bmd_varint(b, (uint64_t)(int64_t)v);
}

void th_bmd_raw(GByteArray *b, const void *p, size_t n)
{
    g_byte_array_append(b, p, (guint)n);
}

void th_bmd_u4(GByteArray *b, uint32_t v)
{
    for (int shift = 24; shift >= 0; shift -= 8)
        th_bmd_u8(b, (uint8_t)(v >> shift));
}

void th_bmd_value(GByteArray *b, int t, uint64_t v)
{
    switch (t) {
    case TH_BMD_OBJ:
    case TH_BMD_INT:
    case TH_BMD_SHORT:
        th_bmd_int(b, (int32_t)v);
        break;
    case TH_BMD_LONG:
        th_bmd_varint(b, v);
        break;
    case TH_BMD_FLOAT: /* little-endian IEEE bits */
    case TH_BMD_DOUBLE:
        for (int i = 0; i < (t == TH_BMD_FLOAT ? 4 : 8); i++)
            th_bmd_u8(b, (uint8_t)(v >> (8 * i)));
        break;
    case TH_BMD_BOOL:
    case TH_BMD_BYTE:
        th_bmd_u8(b, (uint8_t)v);
        break;
    case TH_BMD_CHAR:
        th_bmd_u8(b, (uint8_t)(v >> 8));
        th_bmd_u8(b, (uint8_t)v);
        break;
    }
}

void th_bmd_string(GByteArray *b, uint32_t id, const char *s)
{
    th_bmd_varint(b, BMD_STRING);
    th_bmd_varint(b, id);
    th_bmd_varint(b, strlen(s));
    th_bmd_raw(b, s, strlen(s));
}

void th_bmd_hashed(GByteArray *b, uint32_t id, const char *s)
{
    th_bmd_varint(b, BMD_HASHED_STRING);
    th_bmd_varint(b, id);
    th_bmd_varint(b, strlen(s));
    th_bmd_int(b, bmd_java_hash(s, strlen(s)));
}

void th_bmd_class(GByteArray *b, uint32_t id, uint32_t super, uint32_t name, int ns,
                  const uint64_t *st, int nf, const uint32_t *f, uint32_t discarded)
{
    th_bmd_varint(b, BMD_CLASS);
    th_bmd_varint(b, id);
    th_bmd_varint(b, super);
    th_bmd_varint(b, name);
    th_bmd_varint(b, 1); /* one constant: index 7, int 99 */
    th_bmd_varint(b, 7);
    th_bmd_varint(b, TH_BMD_INT);
    th_bmd_varint(b, 99);
    th_bmd_varint(b, (uint64_t)ns);
    for (int i = 0; i < ns; i++) {
        th_bmd_varint(b, st[3 * i]);
        th_bmd_varint(b, st[3 * i + 1]);
        th_bmd_value(b, (int)st[3 * i + 1], st[3 * i + 2]);
    }
    th_bmd_varint(b, (uint64_t)nf);
    for (int i = 0; i < nf; i++) {
        th_bmd_varint(b, f[2 * i]);
        th_bmd_varint(b, f[2 * i + 1]);
    }
    th_bmd_varint(b, discarded);
}

void th_bmd_instance(GByteArray *b, uint32_t id, uint32_t cls)
{
    th_bmd_varint(b, BMD_INSTANCE);
    th_bmd_varint(b, id);
    th_bmd_varint(b, cls);
}

void th_bmd_roots(GByteArray *b, int n, const uint32_t *ids)
{
    th_bmd_varint(b, BMD_ROOTS);
    th_bmd_varint(b, (uint64_t)n);
    for (int i = 0; i < n; i++)
        th_bmd_varint(b, ids[i]);
}

void th_bmd_objarray(GByteArray *b, uint32_t id, uint32_t cls, int n, const uint32_t *el)
{
    th_bmd_varint(b, BMD_OBJARRAY);
    th_bmd_varint(b, id);
    th_bmd_varint(b, cls);
    th_bmd_varint(b, (uint64_t)n);
    for (int i = 0; i < n; i++)
        th_bmd_varint(b, el[i]);
}

void th_bmd_primarray(GByteArray *b, uint32_t id, uint32_t type, uint32_t n)
{
    th_bmd_varint(b, BMD_PRIMARRAY);
    th_bmd_varint(b, id);
    th_bmd_varint(b, type);
    th_bmd_varint(b, n);
}

void th_bmd_legacy(GByteArray *b, uint32_t tag, const GByteArray *body)
{
    th_bmd_varint(b, BMD_LEGACY);
    th_bmd_varint(b, tag);
    th_bmd_varint(b, body->len);
    th_bmd_raw(b, body->data, body->len);
}

hf_dump *th_bmd_open(const GByteArray *b, const hf_open_opts *opts, char **path)
{
    hf_dump *d = th_open_temp(b->data, b->len, opts, path, NULL);
    assert_string_equal(d->ops->format, "bmd");
    return d;
}

/* ---- OEMP recordings built line by line ---- */

void th_oemp_snap(GString *out, int seq, const char *pcat, const char *acat, const char *bcat,
                  const char *pdata, const char *abln, const char *othn, const char *nodes,
                  const char *aobj, const char *chg, const char *del)
{
    g_string_append_printf(out,
                           "2 77 %d \"2024-05-01T10:00:00.000+00:00\" \"AVM-Client\" \"_PROG\" "
                           "\"\" \"\" 0 \"u-1\" \"\" 0 \"app\" \"\" 1.5 \"12.8\" \"\" \"\"\n.\n",
                           seq);
    const char *secs[] = {pcat, acat, bcat, pdata, abln, othn, nodes, aobj, chg, del};
    for (size_t i = 0; i < G_N_ELEMENTS(secs); i++)
        g_string_append_printf(out, "%s.\n", secs[i]);
    g_string_append_printf(out, "1000 0 0 0 0 0 0 0 0 \"_PROG\" %d\n.\n", seq);
}

void th_oemp_aobj(GString *out, uint64_t id, int type, int64_t mem, int node, int line, int src,
                  uint64_t scope, int nameid, int bio)
{
    g_string_append_printf(out,
                           "%" G_GUINT64_FORMAT " %d %" G_GINT64_FORMAT " 0 0 %" G_GUINT64_FORMAT
                           " %d %d %d 0 %" G_GUINT64_FORMAT " 0 %d 0 %d 0\n",
                           id, type, mem, id * 10, node, line, src, scope, nameid, bio);
}
