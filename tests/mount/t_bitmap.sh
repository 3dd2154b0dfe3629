#!/usr/bin/env bash
# t_bitmap.sh - objects/0xID/bitmap.png of Android Bitmaps whose pixels
# are in the dump (decoders/heap/bitmap.c).
#
# The corpus' Android dump (leakcanary_leak_service_binder.hprof, Android
# 4: pixels in the byte[] mBuffer) has 26 Bitmaps: each has a bitmap.png
# that `file` calls a PNG of the Bitmap's mWidth x mHeight, and whose
# pixels, decoded, are its buffer's bytes (objects/BUFFER/value), row by
# row, as RGBA.  Objects that are no Bitmap (the buffers themselves,
# other instances) have none, nor has any object of a JVM dump.
# (RGB_565, ALPHA_8, a Bitmap$Config, a subclass, short buffers:
# tests/unit/test_bitmap.c on built dumps.)
. "$(dirname "$0")/lib.sh"

cat >"$TESTTMP/bm.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
from flame_check import png_decode
png, value, size = sys.argv[1], sys.argv[2], sys.argv[3]
w, h, ctype, bpp, rows = png_decode(png)
want_w, want_h = (int(x) for x in size.split('x'))
buf = open(value, 'rb').read()
bad = []
if (w, h, ctype) != (want_w, want_h, 6):
    bad.append('%dx%d type %d, want %dx%d RGBA' % (w, h, ctype, want_w, want_h))
elif b''.join(bytes(r) for r in rows) != buf[:w * h * 4]:
    bad.append('pixels differ from the buffer')
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

f=$CORPUS/hprof/leakcanary_leak_service_binder.hprof
if hf_mount "$f"; then
  S=$MNT/latest
  n=0 bad=0 nobuf=0
  while IFS=$'\t' read -r id buf w h; do
    n=$((n + 1))
    if [ ! -f "$S/objects/$id/bitmap.png" ]; then
      echo "# $id: no bitmap.png"; bad=$((bad + 1)); continue
    fi
    file "$S/objects/$id/bitmap.png" | grep -q "PNG image data, $w x $h, 8-bit/color RGBA" ||
      { echo "# $id: $(file -b "$S/objects/$id/bitmap.png")"; bad=$((bad + 1)); }
    python3 "$TESTTMP/bm.py" "$S/objects/$id/bitmap.png" "$S/objects/$buf/value" "${w}x$h" \
      "$ROOT/tests/mount" >"$TESTTMP/bm.out" || { echo "# $id: $(cat "$TESTTMP/bm.out")"; bad=$((bad + 1)); }
    [ ! -e "$S/objects/$buf/bitmap.png" ] || nobuf=$((nobuf + 1))
  done < <(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                       { print $1 "\t" $c["mBuffer"] "\t" $c["mWidth"] "\t" $c["mHeight"] }' \
             "$S/classes/android.graphics.Bitmap/table.tsv")
  check_eq "the Android dump's Bitmaps with a buffer" 26 "$n"
  check_eq "each has a bitmap.png of its size whose pixels are its buffer's bytes" 0 "$bad"
  check_eq "their buffers (byte[]) have none" 0 "$nobuf"
  check "other objects list no bitmap.png" \
    bash -c "o='$S/objects/$(sed -n 2p "$S/strings" | cut -f1)'; ls \"\$o\" | grep -q fields && ! ls \"\$o\" | grep -q bitmap"
  hf_umount
else
  echo "not ok - $(basename "$f") mounts"
fi
if hf_mount "$CORPUS/hprof/mat_oracle_jdk8_05_x64.hprof"; then
  check "a JVM dump: no object has a bitmap.png" \
    bash -c "! find '$MNT/latest/objects' -maxdepth 2 -name bitmap.png | grep -q ."
  hf_umount
fi
