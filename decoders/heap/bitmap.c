/*
 * bitmap.c - objects/0xID/bitmap.png: the pixels of an Android Bitmap
 * (android.graphics.Bitmap or a subclass) whose pixel buffer is in the
 * dump, as a PNG (libpng); bitmap.jpg or bitmap.webp for a picture Android
 * dumped compressed in that format.
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
 * Android 14 and later can dump the pixels compressed (`am dumpheap -b
 * png|jpg|webp`): the static Bitmap.dumpData, a Bitmap$DumpData, lists in
 * natives[i] a Bitmap's mNativePtr and in buffers[i] its picture in the
 * CompressFormat `format` (0 JPEG, 1 PNG, 2-4 WEBP) for its first `count`
 * entries (ahat's reading).  The picture is served as it is, as
 * bitmap.png, bitmap.jpg or bitmap.webp, when it starts with its format's
 * signature (PNG's 8 bytes, JPEG's FF D8 FF, RIFF....WEBP).  Dumps of
 * Android 8 to 13
 * keep pixels outside the Java heap: no bitmap.png.
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

/* the pixels' layout in mBuffer; then the pictures Android compressed */
typedef enum { CFG_ARGB_8888, CFG_RGB_565, CFG_ALPHA_8, CFG_NONE, CFG_JPEG, CFG_PNG, CFG_WEBP } config;
static const char *const config_names[] = {"ARGB_8888", "RGB_565", "ALPHA_8"};
static const unsigned config_bpp[] = {4, 2, 1};

/* What a Bitmap object draws: size, config and its buffer, decoded. */
typedef struct {
    uint32_t width, height;
    config cfg;
    hf_hobj buf; /* the byte[] */
} bitmap;

/* android.graphics.Bitmap when class c is it or extends it, else NULL. */
static const hf_hclass *bitmap_class(const hf_hsnap *sn, uint32_t c)
{
    for (int depth = 0; depth < HF_HCHAIN_MAX; depth++) {
        const hf_hclass *k = hf_heap_class(sn, c);
        if (!k)
            return NULL;
        if (strcmp(k->name, BITMAP) == 0)
            return k;
        if (k->super < 0)
            return NULL;
        c = (uint32_t)k->super;
    }
    return NULL;
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

static bool is_bytes(const hf_hobj *b)
{
    return b->kind == HF_K_PRIMARRAY && b->elem == HF_T_BYTE && !b->nodata &&
           (uint64_t)(b->end - b->data) >= b->length;
}

/* The format of the picture in buf, by CompressFormat `format` and its
 * signature: CFG_JPEG, CFG_PNG, CFG_WEBP, or CFG_NONE. */
static config picture(uint64_t format, const hf_hobj *buf)
{
    const uint8_t *p = buf->data;
    uint64_t n = buf->length;
    if (!is_bytes(buf))
        return CFG_NONE;
    if (format == 0 && n >= 3 && memcmp(p, "\xff\xd8\xff", 3) == 0)
        return CFG_JPEG;
    if (format == 1 && n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return CFG_PNG;
    if (format >= 2 && format <= 4 && n >= 12 && memcmp(p, "RIFF", 4) == 0 &&
        memcmp(p + 8, "WEBP", 4) == 0)
        return CFG_WEBP;
    return CFG_NONE;
}

/* The picture Bitmap$DumpData keeps for the Bitmap ob (class bc), into
 * *buf: its format, CFG_NONE when there is none. */
static config dumped_picture(const hf_heap *h, const hf_hsnap *sn, const hf_hclass *bc,
                             const hf_hobj *ob, hf_hobj *buf)
{
    uint64_t data = 0, ptr, count, format, v;
    for (uint32_t i = 0; i < bc->n_statics; i++)
        if (bc->statics[i].type == HF_T_OBJECT && strcmp(bc->statics[i].name, "dumpData") == 0)
            data = bc->statics[i].value;
    hf_hobj dd, natives, buffers;
    if (!field(h, sn, ob, "mNativePtr", HF_T_LONG, &ptr) || !deref(h, sn, data, &dd) ||
        !field(h, sn, &dd, "count", HF_T_INT, &count) || !field(h, sn, &dd, "format", HF_T_INT, &format) ||
        !field(h, sn, &dd, "natives", HF_T_OBJECT, &v) ||
        !deref(h, sn, v, &natives) || natives.kind != HF_K_PRIMARRAY || natives.elem != HF_T_LONG ||
        !field(h, sn, &dd, "buffers", HF_T_OBJECT, &v) || !deref(h, sn, v, &buffers) ||
        buffers.kind != HF_K_OBJARRAY)
        return CFG_NONE;
    uint64_t n = MIN(MIN((uint32_t)count, natives.length), buffers.length);
    for (uint64_t i = 0; i < n; i++)
        if (hf_heap_element(h, &natives, i) == ptr)
            return deref(h, sn, hf_heap_element(h, &buffers, i), buf) ? picture(format, buf)
                                                                       : CFG_NONE;
    return CFG_NONE;
}

static bool find_bitmap(const hf_heap *h, uint32_t s, uint64_t o, bitmap *bm)
{
    const hf_hsnap *sn = hf_heap_snap(h, s);
    const hf_hclass *bc = sn && o < sn->n_objects ? bitmap_class(sn, hf_heap_cls(sn, o)) : NULL;
    hf_hobj ob;
    uint64_t w, ht, buf;
    if (!bc || !hf_heap_decode(h, sn, o, &ob) || ob.kind != HF_K_INSTANCE ||
        !field(h, sn, &ob, "mWidth", HF_T_INT, &w) || !field(h, sn, &ob, "mHeight", HF_T_INT, &ht) ||
        (int32_t)w <= 0 || (int32_t)ht <= 0)
        return false;
    bm->width = (uint32_t)w;
    bm->height = (uint32_t)ht;
    if (!field(h, sn, &ob, "mBuffer", HF_T_OBJECT, &buf) || !deref(h, sn, buf, &bm->buf)) {
        bm->cfg = dumped_picture(h, sn, bc, &ob, &bm->buf);
        return bm->cfg != CFG_NONE;
    }
    uint64_t px = (uint64_t)bm->width * bm->height, len = bm->buf.length;
    if (!is_bytes(&bm->buf) || px > MAX_PIXELS)
        return false;
    bm->cfg = named_config(h, sn, &ob);
    if (bm->cfg == CFG_NONE)
        bm->cfg = len >= 4 * px ? CFG_ARGB_8888 : len == 2 * px ? CFG_RGB_565 : len == px ? CFG_ALPHA_8 : CFG_NONE;
    return bm->cfg != CFG_NONE && len >= config_bpp[bm->cfg] * px;
}

bool hf_heap_has_bitmap(hf_dump *d, uint32_t s, uint64_t o)
{
    bitmap bm;
    return find_bitmap(H(d), s, o, &bm) && (bm.cfg < CFG_NONE || bm.cfg == CFG_PNG);
}

/* A picture Android compressed, as it is. */
static void append_picture(const bitmap *bm, GString *out)
{
    g_string_append_len(out, (const char *)bm->buf.data, (gssize)bm->buf.length);
}

bool hf_heap_has_bitmap_jpeg(hf_dump *d, uint32_t s, uint64_t o)
{
    bitmap bm;
    return find_bitmap(H(d), s, o, &bm) && bm.cfg == CFG_JPEG;
}

bool hf_heap_has_bitmap_webp(hf_dump *d, uint32_t s, uint64_t o)
{
    bitmap bm;
    return find_bitmap(H(d), s, o, &bm) && bm.cfg == CFG_WEBP;
}

/* The picture of object v->index as Android compressed it, when in `cfg`. */
static uint64_t view_compressed(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                config cfg)
{
    bitmap bm;
    if (first == 0 && find_bitmap(H(d), v->snap, v->index, &bm) && bm.cfg == cfg)
        append_picture(&bm, out);
    return HF_DONE;
}

uint64_t hf_heap_view_bitmap_jpeg(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    return view_compressed(d, v, first, out, CFG_JPEG);
}

uint64_t hf_heap_view_bitmap_webp(hf_dump *d, const hf_view *v, uint64_t first, GString *out,
                                  size_t budget)
{
    return view_compressed(d, v, first, out, CFG_WEBP);
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
    if (first != 0 || !find_bitmap(H(d), v->snap, v->index, &bm) || bm.cfg == CFG_JPEG ||
        bm.cfg == CFG_WEBP)
        return HF_DONE;
    if (bm.cfg == CFG_PNG) { /* compressed by Android already */
        append_picture(&bm, out);
        return HF_DONE;
    }
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
