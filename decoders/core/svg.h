/*
 * svg.h - what the pictures (flame.svg, flame-diff.svg, dominators.svg,
 * growth.svg) write alike: escaped text and labels cut to fit a box.
 *
 * Pure functions; thread-safe.
 */
#ifndef HF_SVG_H
#define HF_SVG_H

#include <glib.h>

/* Advance of a 12 px monospace character in the pictures, a little over. */
#define HF_SVG_CHAR_W 7.3

/* Appends the label that fits a box w pixels wide in the pictures' 12 px
 * monospace font (HF_SVG_CHAR_W a character, 3 px each side): name, cut
 * with ".." at the end, or nothing when not 3 characters fit.  Escaped. */
void hf_svg_label(GString *out, const char *name, double w);

/* Appends s XML-escaped (& < > " '), invalid UTF-8 replaced, characters
 * XML 1.0 forbids written as U+FFFD. */
void hf_xml_escape(GString *out, const char *s);

#endif
