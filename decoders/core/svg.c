/* svg.c - see svg.h. */
#include "decoders/core/svg.h"

void hf_xml_escape(GString *out, const char *s)
{
    char *valid = g_utf8_make_valid(s, -1);
    for (const char *q = valid; *q; q = g_utf8_next_char(q)) {
        gunichar c = g_utf8_get_char(q);
        switch (c) {
        case '&': g_string_append(out, "&amp;"); break;
        case '<': g_string_append(out, "&lt;"); break;
        case '>': g_string_append(out, "&gt;"); break;
        case '"': g_string_append(out, "&quot;"); break;
        case '\'': g_string_append(out, "&apos;"); break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF)
                g_string_append_unichar(out, 0xFFFD);
            else
                g_string_append_len(out, q, g_utf8_next_char(q) - q);
        }
    }
    g_free(valid);
}

void hf_svg_label(GString *out, const char *name, double w)
{
    long fit = (long)((w - 6) / HF_SVG_CHAR_W);
    if (fit < 3)
        return;
    char *valid = g_utf8_make_valid(name, -1);
    if (g_utf8_strlen(valid, -1) > fit) {
        *g_utf8_offset_to_pointer(valid, fit - 2) = '\0';
        hf_xml_escape(out, valid);
        g_string_append(out, "..");
    } else {
        hf_xml_escape(out, valid);
    }
    g_free(valid);
}
