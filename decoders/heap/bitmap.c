/*
 * bitmap.c - objects/0xID/bitmap.png: the pixels of an Android Bitmap
 * (android.graphics.Bitmap or a subclass) whose pixel buffer is in the
 * dump, as a PNG (libpng).
 *
 * Android before 8.0 keeps a Bitmap's pixels in a byte[] its mBuffer
 * field refers to (Android Studio's and ahat's dumps); mWidth and mHeight
 * give the size.  The config (bytes per pixel) is read from the Bitmap's
 * mConfig field where it has one (the Bitmap$Config enum's name), else
 * from the buffer's length: 4 bytes a pixel (ARGB_8888) when it holds at
 * least width x height x 4 bytes, as ahat reads it, 2 (RGB_565) or 1
 * (ALPHA_8) when it holds exactly that.  The pixels, row by row, are
 * written as the buffer has them:
 *   ARGB_8888  the bytes R, G, B, A of each pixel (Skia's order on
 *              Android), as 8-bit RGBA (premultiplied, as in memory);
 *   RGB_565    a little-endian 16-bit word, 5 bits red, 6 green, 5 blue,
 *              as 8-bit RGB, each channel widened by repeating its high
 *              bits (31 -> 255);
 *   ALPHA_8    one byte of alpha, as 8-bit gray and alpha with gray 0.
 * Newer Android dumps keep pixels outside the Java heap (or compressed,
 * in Bitmap$DumpData): those Bitmaps have no bitmap.png.
 *
 * Thread-safe: reads the finished graph only.
 */
#include "decoders/heap/fields.h"
#include "decoders/heap/render.h"

#include <png.h>
#include <string.h>

#define H(d) ((hf_heap *)(d))
#define BITMAP "android.graphics.Bitmap"
/* Larger buffers are not drawn: 64 Mpixels (a 256 MiB ARGB_8888 buffer). */
#define MAX_PIXELS (UINT64_C(1) << 26)

typedef enum { CFG_ARGB_8888, CFG_RGB_565, CFG_ALPHA_8, CFG_NONE } config;
static const char *const config_names[] = {"ARGB_8888", "RGB_565", "ALPHA_8"};
static const unsigned config_bpp[] = {4, 2, 1};

/* What a Bitmap object draws: size, config and its buffer, decoded. */
typedef struct {
    uint32_t width, height;
    config cfg;
    hf_hobj buf; /* the byte[] */
} bitmap;

static bool is_bitmap_class(const hf_hsnap *sn, uint32_t c)
{
    for (int depth = 0; depth < HF_HCHAIN_MAX; depth++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        if (!k)
            return false;
        if (strcmp(k->name, BITMAP) == 0)
            return true;
        if (k->super < 0)
            return false;
        c = (uint32_t)k->super;
    }
    return false;
}

/* The value of ob's instance field `name` of type t; false when it has none. */
static bool field(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob, const char *name,
                  unsigned t, uint64_t *v)
{
    hf_hfields it;
    bool found = false;
    hf_hfields_begin(&it, sn, hf_heap_class(sn, ob->cls));
    while (!found && hf_hfields_next(&it))
        found = it.f->type == t && strcmp(it.f->name, name) == 0;
    uint32_t fi = it.index;
    hf_hfields_end(&it);
    return found && hf_heap_field(h, sn, ob, fi, v);
}

/* The object whose id is v, decoded; false for null or a missing one. */
static bool deref(const hf_heap *h, const hf_hsnap *sn, uint64_t id, hf_hobj *ob)
{
    int64_t o = id ? hf_heap_find_id(h, sn, id) : -1;
    return o >= 0 && hf_heap_decode(h, sn, (uint64_t)o, ob);
}

/* The config named by the Bitmap's mConfig (a Bitmap$Config enum: its
 * name), CFG_NONE when it has none that is known. */
static config named_config(const hf_heap *h, const hf_hsnap *sn, const hf_hobj *ob)
{
    uint64_t v;
    hf_hobj e, s;
    if (!field(h, sn, ob, "mConfig", HF_T_OBJECT, &v) || !deref(h, sn, v, &e) ||
        !field(h, sn, &e, "name", HF_T_OBJECT, &v) || !deref(h, sn, v, &s))
        return CFG_NONE;
    GString *t = g_string_new(NULL);
    config c = CFG_NONE;
    if (hf_heap_text(h, sn, &s, t))
        for (int k = 0; k < CFG_NONE; k++)
            if (strcmp(t->str, config_names[k]) == 0)
                c = (config)k;
    g_string_free(t, TRUE);
    return c;
}

static bool find_bitmap(const hf_heap *h, uint32_t s, uint64_t o, bitmap *bm)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    hf_hobj ob;
    uint64_t w, ht, buf;
    if (!sn || o >= sn->n_objects || !is_bitmap_class(sn, hf_heap_cls(sn, o)) ||
        !hf_heap_decode(h, sn, o, &ob) || ob.kind != HF_K_INSTANCE ||
        !field(h, sn, &ob, "mWidth", HF_T_INT, &w) || !field(h, sn, &ob, "mHeight", HF_T_INT, &ht) ||
        !field(h, sn, &ob, "mBuffer", HF_T_OBJECT, &buf) || !deref(h, sn, buf, &bm->buf))
        return false;
    bm->width = (uint32_t)w;
    bm->height = (uint32_t)ht;
    uint64_t px = (uint64_t)bm->width * bm->height, len = bm->buf.length;
    if (bm->buf.kind != HF_K_PRIMARRAY || bm->buf.elem != HF_T_BYTE || bm->buf.nodata ||
        (int32_t)w <= 0 || (int32_t)ht <= 0 || px > MAX_PIXELS ||
        (uint64_t)(bm->buf.end - bm->buf.data) < len)
        return false;
    bm->cfg = named_config(h, sn, &ob);
    if (bm->cfg == CFG_NONE)
        bm->cfg = len >= 4 * px ? CFG_ARGB_8888 : len == 2 * px ? CFG_RGB_565 : len == px ? CFG_ALPHA_8 : CFG_NONE;
    return bm->cfg != CFG_NONE && len >= config_bpp[bm->cfg] * px;
}

bool hf_heap_has_bitmap(hf_dump *d, uint32_t s, uint64_t o)
{
    bitmap bm;
    return find_bitmap(H(d), s, o, &bm);
}

static void write_png(png_structp png, png_bytep data, png_size_t n)
{
    g_string_append_len(png_get_io_ptr(png), (const char *)data, (gssize)n);
}

static void flush_png(png_structp png)
{
}

/* Row y of bm as the PNG wants it (see the top of this file). */
static void png_row(const bitmap *bm, uint32_t y, uint8_t *row)
{
    const uint8_t *p = bm->buf.data + (size_t)y * bm->width * config_bpp[bm->cfg];
    for (uint32_t x = 0; x < bm->width; x++) {
        switch (bm->cfg) {
        case CFG_ARGB_8888:
            memcpy(row + 4 * x, p + 4 * x, 4);
            break;
        case CFG_RGB_565: {
            unsigned v = p[2 * x] | p[2 * x + 1] << 8, r = v >> 11, g = (v >> 5) & 63, b = v & 31;
            row[3 * x] = (uint8_t)(r << 3 | r >> 2);
            row[3 * x + 1] = (uint8_t)(g << 2 | g >> 4);
            row[3 * x + 2] = (uint8_t)(b << 3 | b >> 2);
            break;
        }
        default:
            row[2 * x] = 0;
            row[2 * x + 1] = p[x];
        }
    }
}

uint64_t hf_heap_view_bitmap(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                             size_t budget)
{
    bitmap bm;
    if (first != 0 || !find_bitmap(H(d), v->snap, v->index, &bm))
        return HF_DONE;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    static const int types[] = {PNG_COLOR_TYPE_RGB_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_GRAY_ALPHA};
    uint8_t *row = g_malloc((size_t)bm.width * 4);
    size_t start = out->len;
    if (png && info && setjmp(png_jmpbuf(png)) == 0) {
        png_set_write_fn(png, out, write_png, flush_png);
        png_set_IHDR(png, info, bm.width, bm.height, 8, types[bm.cfg], PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_text text = {PNG_TEXT_COMPRESSION_NONE, (char *)"Comment", NULL, 0};
        char *comment = g_strdup_printf("android.graphics.Bitmap %ux%u %s", bm.width, bm.height,
                                        config_names[bm.cfg]);
        text.text = comment;
        png_set_text(png, info, &text, 1);
        png_write_info(png, info);
        g_free(comment);
        for (uint32_t y = 0; y < bm.height; y++) {
            png_row(&bm, y, row);
            png_write_row(png, row);
        }
        png_write_end(png, info);
    } else {
        g_string_truncate(out, start); /* libpng failed: no half picture */
    }
    png_destroy_write_struct(&png, &info);
    g_free(row);
    return HF_DONE;
}
