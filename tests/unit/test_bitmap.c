/*
 * test_bitmap.c - objects/0xID/bitmap.png (decoders/heap/bitmap.c) on
 * HPROF dumps built here (hprofbld.h) with an Android Bitmap's layout:
 * mBuffer, mWidth, mHeight and mConfig (a Bitmap$Config enum, named by
 * java.lang.Enum's name).  The PNG is read back with libpng: its size,
 * colour type and pixels follow the config (named, or from the buffer's
 * length); a subclass of Bitmap has one; a short or null buffer, or an
 * object that is no Bitmap, has none.  A dump of Android 14's kind
 * (Bitmap.dumpData: pictures compressed by Android) gives the picture
 * dumpData holds for the Bitmap's mNativePtr, byte for byte, as
 * bitmap.png, bitmap.jpg or bitmap.webp by dumpData's format, and none
 * where the bytes are not of that format, or the pointer is not among its
 * first `count`.  The JPEG and WEBP are real (cjpeg and cwebp made them).
 */
#include "tests/unit/helpers.h"
#include "tests/unit/hprofbld.h"

#include <png.h>
#include <unistd.h>

enum { S_OBJECT = 1, S_STRING, S_ENUM, S_CONFIG, S_BITMAP, S_MINE, S_BYTES, S_CHARS,
       S_VALUE, S_NAME, S_BUFFER, S_WIDTH, S_HEIGHT, S_CFG, S_N };
enum { C_OBJECT = 0x100, C_STRING = 0x200, C_ENUM = 0x300, C_CONFIG = 0x400,
       C_BITMAP = 0x500, C_MINE = 0x600, C_BYTES = 0x700, C_CHARS = 0x800 };

/* 3 x 2 RGB_565 pixels, then as many bytes again: by its length the
 * buffer would be ARGB_8888, by its Config it is not. */
static const uint8_t rgb565[24] = {0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, /* red, green, blue */
                                   0xff, 0xff, 0x00, 0x00, 0x10, 0x84}; /* white, black, grey */
static const uint8_t alpha8[4] = {0, 64, 128, 255};
static const uint8_t argb[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* A Bitmap's instance data: mBuffer, mWidth, mHeight, mConfig. */
static void bitmap(bld *b, uint64_t oid, uint64_t cls, uint64_t buf, uint32_t w, uint32_t h,
                   uint64_t cfg)
{
    bld t = {g_byte_array_new(), 8, 0};
    id(&t, buf);
    u4(&t, w);
    u4(&t, h);
    id(&t, cfg);
    instance(b, oid, cls, t.b->data, t.b->len);
    g_byte_array_unref(t.b);
}

static GByteArray *android_file(void)
{
    bld b = start(8, "JAVA PROFILE 1.0.3");
    const char *names[S_N] = {NULL, "java/lang/Object", "java/lang/String", "java/lang/Enum",
                              "android/graphics/Bitmap$Config", "android/graphics/Bitmap",
                              "com/example/MyBitmap", "[B", "[C", "value", "name", "mBuffer",
                              "mWidth", "mHeight", "mConfig"};
    for (int i = 1; i < S_N; i++)
        str(&b, (uint64_t)i, names[i]);
    const uint64_t cls[][2] = {{C_OBJECT, S_OBJECT}, {C_STRING, S_STRING}, {C_ENUM, S_ENUM},
                               {C_CONFIG, S_CONFIG}, {C_BITMAP, S_BITMAP}, {C_MINE, S_MINE},
                               {C_BYTES, S_BYTES},   {C_CHARS, S_CHARS}};
    for (uint32_t i = 0; i < G_N_ELEMENTS(cls); i++)
        load_class(&b, i + 1, cls[i][0], cls[i][1]);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    const uint64_t sf[] = {S_VALUE, HF_T_OBJECT}, ef[] = {S_NAME, HF_T_OBJECT};
    class_dump(&b, C_STRING, C_OBJECT, 8, 0, NULL, 1, sf);
    class_dump(&b, C_ENUM, C_OBJECT, 8, 0, NULL, 1, ef);
    class_dump(&b, C_CONFIG, C_ENUM, 8, 0, NULL, 0, NULL);
    const uint64_t bf[] = {S_BUFFER, HF_T_OBJECT, S_WIDTH, HF_T_INT, S_HEIGHT, HF_T_INT,
                           S_CFG, HF_T_OBJECT};
    class_dump(&b, C_BITMAP, C_OBJECT, 24, 0, NULL, 4, bf);
    class_dump(&b, C_MINE, C_BITMAP, 24, 0, NULL, 0, NULL);
    /* RGB_565 by its Config (not its length); ALPHA_8 and ARGB_8888 by length (the first
     * a subclass); a buffer too short; no buffer; a Config (no Bitmap). */
    bitmap(&b, 0x1000, C_BITMAP, 0x1100, 3, 2, 0x2000);
    bitmap(&b, 0x1001, C_MINE, 0x1101, 2, 2, 0);
    bitmap(&b, 0x1002, C_BITMAP, 0x1102, 2, 2, 0);
    bitmap(&b, 0x1003, C_BITMAP, 0x1103, 4, 4, 0);
    bitmap(&b, 0x1004, C_BITMAP, 0, 4, 4, 0);
    prim_array(&b, 0x1100, HF_T_BYTE, sizeof rgb565, rgb565, 1);
    prim_array(&b, 0x1101, HF_T_BYTE, sizeof alpha8, alpha8, 1);
    prim_array(&b, 0x1102, HF_T_BYTE, sizeof argb, argb, 1);
    prim_array(&b, 0x1103, HF_T_BYTE, 5, argb, 1);
    bld t = {g_byte_array_new(), 8, 0};
    id(&t, 0x2100);
    instance(&b, 0x2000, C_CONFIG, t.b->data, t.b->len); /* Config.name */
    g_byte_array_set_size(t.b, 0);
    id(&t, 0x2200);
    instance(&b, 0x2100, C_STRING, t.b->data, t.b->len); /* String.value */
    g_byte_array_set_size(t.b, 0);
    for (const char *c = "RGB_565"; *c; c++)
        u2(&t, (uint16_t)*c);
    prim_array(&b, 0x2200, HF_T_CHAR, 7, t.b->data, 2);
    g_byte_array_unref(t.b);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

/* File `name` of object oname, NULL when it has none (the listing's view). */
static GString *file_of(hf_dump *d, const char *oname, const char *name)
{
    uint64_t o = th_object(d, 0, oname);
    const hf_file *f = d->ops->object.files;
    int i = th_file_index(f, name);
    assert_true(i >= 0);
    if (!th_object_has(d, 0, oname, name))
        return NULL;
    GString *out = g_string_new(NULL);
    hf_view v = {0, o, (uint32_t)i};
    assert_int_equal(f[i].render(d, &v, 0, out, 1), HF_DONE);
    return out;
}

static GString *png_of(hf_dump *d, const char *oname)
{
    return file_of(d, oname, "bitmap.png");
}

/* Reads png as RGBA; checks its size and colour type. */
static uint8_t *read_rgba(const GString *png, uint32_t w, uint32_t h, png_uint_32 format)
{
    png_image img = {.version = PNG_IMAGE_VERSION};
    assert_true(png_image_begin_read_from_memory(&img, png->str, png->len));
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    assert_int_equal(img.format, format);
    img.format = PNG_FORMAT_RGBA;
    uint8_t *px = g_malloc(PNG_IMAGE_SIZE(img));
    assert_true(png_image_finish_read(&img, NULL, px, 0, NULL));
    return px;
}

static void test_bitmaps(void **state)
{
    GByteArray *bytes = android_file();
    char *path;
    hf_dump *d = th_open_temp(bytes->data, bytes->len, NULL, &path, NULL);
    g_byte_array_unref(bytes);

    GString *png = png_of(d, "0x1000"); /* RGB_565, 3 x 2, by its Config */
    assert_non_null(png);
    uint8_t *px = read_rgba(png, 3, 2, PNG_FORMAT_RGB);
    const uint8_t want565[] = {255, 0, 0, 255,     0, 255, 0, 255,   0, 0, 255, 255,
                               255, 255, 255, 255, 0, 0, 0, 255,     132, 130, 132, 255};
    assert_memory_equal(px, want565, sizeof want565);
    g_free(px);
    g_string_free(png, TRUE);

    png = png_of(d, "0x1001"); /* ALPHA_8 by length, a subclass of Bitmap */
    assert_non_null(png);
    px = read_rgba(png, 2, 2, PNG_FORMAT_GA);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(px[4 * i], 0);
        assert_int_equal(px[4 * i + 3], alpha8[i]);
    }
    g_free(px);
    g_string_free(png, TRUE);

    png = png_of(d, "0x1002"); /* ARGB_8888: the buffer's bytes, as RGBA */
    assert_non_null(png);
    px = read_rgba(png, 2, 2, PNG_FORMAT_RGBA);
    assert_memory_equal(px, argb, sizeof argb);
    g_free(px);
    g_string_free(png, TRUE);

    assert_null(png_of(d, "0x1003")); /* 5 bytes for 16 pixels */
    assert_null(png_of(d, "0x1004")); /* no buffer */
    assert_null(png_of(d, "0x1100")); /* the buffer itself */
    assert_null(png_of(d, "0x2000")); /* the Config */
    th_close_temp(d, path);
}

enum { S_DUMPDATA = S_N, S_PTR, S_STATIC, S_COUNT, S_FORMAT, S_NATIVES, S_BUFFERS, S_LONGS,
       S_OBJECTS, S_N14 };
enum { C_DUMPDATA = 0x900, C_LONGS = 0xa00, C_OBJECTS = 0xb00 };

/* A 2 x 1 PNG made with libpng, for dumpData to hold. */
static GByteArray *small_png(void)
{
    png_image img = {.version = PNG_IMAGE_VERSION, .width = 2, .height = 1,
                     .format = PNG_FORMAT_RGBA};
    const uint8_t px[8] = {10, 20, 30, 255, 40, 50, 60, 128};
    png_alloc_size_t n = 0;
    assert_true(png_image_write_to_memory(&img, NULL, &n, 0, px, 0, NULL));
    GByteArray *b = g_byte_array_sized_new((guint)n);
    g_byte_array_set_size(b, (guint)n);
    assert_true(png_image_write_to_memory(&img, b->data, &n, 0, px, 0, NULL));
    return b;
}

/* A 2 x 1 gray JPEG: cjpeg -grayscale -optimize -quality 50 of a PPM. */
static const uint8_t jpeg_2x1[] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01,
    0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43,
    0x00, 0x10, 0x0b, 0x0c, 0x0e, 0x0c, 0x0a, 0x10, 0x0e, 0x0d, 0x0e, 0x12,
    0x11, 0x10, 0x13, 0x18, 0x28, 0x1a, 0x18, 0x16, 0x16, 0x18, 0x31, 0x23,
    0x25, 0x1d, 0x28, 0x3a, 0x33, 0x3d, 0x3c, 0x39, 0x33, 0x38, 0x37, 0x40,
    0x48, 0x5c, 0x4e, 0x40, 0x44, 0x57, 0x45, 0x37, 0x38, 0x50, 0x6d, 0x51,
    0x57, 0x5f, 0x62, 0x67, 0x68, 0x67, 0x3e, 0x4d, 0x71, 0x79, 0x70, 0x64,
    0x78, 0x5c, 0x65, 0x67, 0x63, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01,
    0x00, 0x02, 0x01, 0x01, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x14, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x06, 0xff, 0xc4, 0x00, 0x19, 0x10, 0x00, 0x01, 0x05,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x02, 0x03, 0x33, 0x71, 0xff, 0xda, 0x00, 0x08, 0x01,
    0x01, 0x00, 0x00, 0x3f, 0x00, 0x2b, 0x1d, 0x6d, 0xc4, 0x3f, 0xff, 0xd9,
};

/* A 2 x 1 WEBP: cwebp -lossless of the same PPM. */
static const uint8_t webp_2x1[] = {
    0x52, 0x49, 0x46, 0x46, 0x20, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50,
    0x56, 0x50, 0x38, 0x4c, 0x14, 0x00, 0x00, 0x00, 0x2f, 0x01, 0x00, 0x00,
    0x00, 0x0f, 0x70, 0x0a, 0x8f, 0x2b, 0x78, 0xd4, 0x63, 0xfe, 0x83, 0x43,
    0x05, 0x22, 0xfa, 0x1f,
};

/* Android 14's layout: Bitmap {mNativePtr, mWidth, mHeight} with a static
 * dumpData {count, format, natives long[], buffers Object[]}. */
static GByteArray *android14_file(const uint8_t *pic, size_t pic_len, uint32_t format)
{
    bld b = start(8, "JAVA PROFILE 1.0.3");
    const char *names[] = {"java/lang/Object", "android/graphics/Bitmap",
                           "android/graphics/Bitmap$DumpData", "[J", "[Ljava/lang/Object;",
                           "[B", "mNativePtr", "mWidth", "mHeight", "dumpData", "count",
                           "format", "natives", "buffers"};
    const uint64_t sid[] = {S_OBJECT, S_BITMAP, S_DUMPDATA, S_LONGS, S_OBJECTS, S_BYTES, S_PTR,
                            S_WIDTH, S_HEIGHT, S_STATIC, S_COUNT, S_FORMAT, S_NATIVES, S_BUFFERS};
    for (uint32_t i = 0; i < G_N_ELEMENTS(sid); i++)
        str(&b, sid[i], names[i]);
    const uint64_t cls[][2] = {{C_OBJECT, S_OBJECT}, {C_BITMAP, S_BITMAP}, {C_DUMPDATA, S_DUMPDATA},
                               {C_LONGS, S_LONGS},   {C_OBJECTS, S_OBJECTS}, {C_BYTES, S_BYTES}};
    for (uint32_t i = 0; i < G_N_ELEMENTS(cls); i++)
        load_class(&b, i + 1, cls[i][0], cls[i][1]);
    rec(&b, HPROF_HEAP_DUMP_SEGMENT);
    class_dump(&b, C_OBJECT, 0, 0, 0, NULL, 0, NULL);
    const uint64_t st[] = {S_STATIC, HF_T_OBJECT, 0x4000};
    const uint64_t bf[] = {S_PTR, HF_T_LONG, S_WIDTH, HF_T_INT, S_HEIGHT, HF_T_INT};
    class_dump(&b, C_BITMAP, C_OBJECT, 16, 1, st, 3, bf);
    const uint64_t df[] = {S_COUNT, HF_T_INT, S_FORMAT, HF_T_INT, S_NATIVES, HF_T_OBJECT,
                           S_BUFFERS, HF_T_OBJECT};
    class_dump(&b, C_DUMPDATA, C_OBJECT, 24, 0, NULL, 4, df);
    bld t = {g_byte_array_new(), 8, 0};
    const uint64_t ptrs[] = {0x7700, 0x8800, 0x9900}; /* the third beyond count */
    for (int i = 0; i < 3; i++) {
        g_byte_array_set_size(t.b, 0);
        u8(&t, ptrs[2 - i]); /* 0x1000 has 0x9900, 0x1001 0x8800, 0x1002 0x7700 */
        u4(&t, 2);
        u4(&t, 1);
        instance(&b, 0x1000 + (uint64_t)i, C_BITMAP, t.b->data, t.b->len);
    }
    g_byte_array_set_size(t.b, 0);
    u4(&t, 2); /* count */
    u4(&t, format);
    id(&t, 0x4100);
    id(&t, 0x4200);
    instance(&b, 0x4000, C_DUMPDATA, t.b->data, t.b->len);
    g_byte_array_set_size(t.b, 0);
    for (int i = 0; i < 3; i++)
        u8(&t, ptrs[i]);
    prim_array(&b, 0x4100, HF_T_LONG, 3, t.b->data, 8);
    const uint64_t bufs[] = {0x4300, 0x4301, 0x4301};
    obj_array(&b, 0x4200, C_OBJECTS, 3, bufs);
    prim_array(&b, 0x4300, HF_T_BYTE, 3, (const uint8_t *)"JPG", 1);
    prim_array(&b, 0x4301, HF_T_BYTE, pic_len, pic, 1);
    g_byte_array_unref(t.b);
    end(&b);
    rec(&b, HPROF_HEAP_DUMP_END);
    end(&b);
    return b.b;
}

static void test_dump_data(void **state)
{
    GByteArray *png = small_png();
    static const char *const names[] = {"bitmap.jpg", "bitmap.png", "bitmap.webp"};
    const struct {
        uint32_t format;      /* dumpData's CompressFormat */
        const uint8_t *pic;   /* the picture it holds for 0x1001 */
        size_t len;
        int served;           /* which of names 0x1001 has, -1: none */
    } cases[] = {
        {0, jpeg_2x1, sizeof jpeg_2x1, 0},   {1, png->data, png->len, 1},
        {2, webp_2x1, sizeof webp_2x1, 2},   {4, webp_2x1, sizeof webp_2x1, 2},
        {0, png->data, png->len, -1},        {1, jpeg_2x1, sizeof jpeg_2x1, -1},
        {3, jpeg_2x1, sizeof jpeg_2x1, -1},  {5, webp_2x1, sizeof webp_2x1, -1},
    };
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        GByteArray *bytes = android14_file(cases[c].pic, cases[c].len, cases[c].format);
        char *path;
        hf_dump *d = th_open_temp(bytes->data, bytes->len, NULL, &path, NULL);
        g_byte_array_unref(bytes);
        for (int k = 0; k < 3; k++) {
            GString *got = file_of(d, "0x1001", names[k]); /* natives[1] 0x8800: buffers[1] */
            if (k == cases[c].served) {
                assert_non_null(got);
                assert_int_equal(got->len, cases[c].len);
                assert_memory_equal(got->str, cases[c].pic, cases[c].len);
                g_string_free(got, TRUE);
            } else {
                assert_null(got);
            }
            assert_null(file_of(d, "0x1000", names[k])); /* 0x9900: natives[2], past count */
            assert_null(file_of(d, "0x1002", names[k])); /* 0x7700: buffers[0], "JPG" */
        }
        th_close_temp(d, path);
    }
    g_byte_array_unref(png);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitmaps),
        cmocka_unit_test(test_dump_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
