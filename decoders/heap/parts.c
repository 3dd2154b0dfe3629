/*
 * parts.c - what classes/NAME/, objects/0xID/ and threads/T/ hold for every
 * heap format: the tables of files, links and link directories (model.h).
 * A decoder points its ops at these, or declares its own table where its
 * format differs (BMD keeps no values, HPROF text has its own fields).
 */
#include "decoders/heap/inspect.h"
#include "decoders/heap/render.h"
#include "decoders/heap/tables.h"

const hf_file hf_heap_class_files[] = {
    {"info", hf_heap_view_class_info, NULL},
    {"fields", hf_heap_view_class_fields, NULL},
    {"statics", hf_heap_view_class_statics, hf_heap_has_class_statics},
    {"instances", hf_heap_view_class_instances, hf_heap_has_class_instances},
    {"retained", hf_heap_view_class_retained, NULL},
    {"paths", hf_heap_view_class_paths, hf_heap_has_class_instances},
    {"table.tsv", hf_heap_class_table_view, NULL},
    {NULL},
};

const hf_link hf_heap_class_links[] = {
    {"super", hf_heap_link_super},
    {NULL},
};

const hf_file hf_heap_object_files[] = {
    {"info", hf_heap_view_object_info, NULL},
    {"fields", hf_heap_view_object_fields, hf_heap_has_object_fields},
    {"value", hf_heap_view_object_value, hf_heap_has_object_value},
    {"bitmap.png", hf_heap_view_bitmap, hf_heap_has_bitmap},
    HF_HEAP_RETAINED_OBJECT_FILES,
    HF_HEAP_INSPECT_OBJECT_FILES,
    /* last, so that the files before keep their inode numbers */
    {"bitmap.jpg", hf_heap_view_bitmap_jpeg, hf_heap_has_bitmap_jpeg},
    {"bitmap.webp", hf_heap_view_bitmap_webp, hf_heap_has_bitmap_webp},
    {NULL},
};

const hf_link hf_heap_object_links[] = {
    {"class", hf_heap_link_class},
    {"dominator", hf_heap_link_dominator, hf_heap_has_always},
    {NULL},
};

const hf_linkdir hf_heap_object_dirs[] = {
    {"refs", hf_heap_has_refs, hf_heap_refs_entry, hf_heap_refs_find},
    {"referrers", NULL, hf_heap_referrers_entry, hf_heap_referrers_find},
    {"dominated", NULL, hf_heap_dominated_entry, hf_heap_dominated_find},
    {NULL},
};

const hf_file hf_heap_thread_files[] = {
    {"info", hf_heap_view_thread_info, NULL},
    {"stack", hf_heap_view_thread_stack, NULL},
    HF_HEAP_INSPECT_THREAD_FILES,
    {NULL},
};
