/*
 * helpers.c - see helpers.h.
 */
#include "tests/unit/helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
