/*
 * snap.c - what every part of the decoder asks of a parsed snapshot (v8.h):
 * its strings, decoded from the file on demand, edge names, and freeing.
 * Pure over the snapshot: thread-safe.
 */
#include "decoders/v8/v8.h"

void v8_string(const v8_snap *sn, uint32_t i, GString *out)
{
    if (i < sn->n_strings)
        v8_json_decode(sn->data, sn->len, sn->str_off[i], out);
}

void v8_edge_name(const v8_snap *sn, uint32_t e, GString *out)
{
    if (sn->etype[e] == V8E_ELEMENT || sn->etype[e] == V8E_HIDDEN)
        g_string_append_printf(out, "%u", sn->ename[e]);
    else
        v8_string(sn, sn->ename[e], out);
}

void v8_snap_free(v8_snap *sn)
{
    if (!sn)
        return;
    g_free(sn->path);
    if (sn->map)
        g_mapped_file_unref(sn->map);
    if (sn->inflated)
        g_byte_array_free(sn->inflated, TRUE);
    g_free(sn->type);
    g_free(sn->name);
    g_free(sn->id);
    g_free(sn->raw_size);
    g_free(sn->size);
    g_free(sn->trace);
    g_free(sn->detached);
    g_free(sn->first);
    g_free(sn->etype);
    g_free(sn->ename);
    g_free(sn->eto);
    g_free(sn->essential);
    g_free(sn->orphans);
    g_free(sn->str_off);
    g_free(sn->cls);
    g_free(sn->tnodes);
    g_free(sn->tfuncs);
    g_free(sn);
}
