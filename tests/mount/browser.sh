# browser.sh - headless Chromium for the picture tests (source it after
# lib.sh): t_flame.sh, t_flamediff.sh, t_treemap.sh, t_growthsvg.sh.
#
#   CHROMIUM                       its path, empty when not installed
#   browser_shot URL PNG W H       a W x H screenshot of URL (no scrollbars)
#   browser_dom URL OUT            the DOM after URL's scripts ran, to OUT
#   svg_height SVG                 the height="N" of an SVG's root element
#   flame_in_browser SVG FOLDED LABEL   a flame graph's zoom, search, colours
#
# Chromium is slow to start (seconds on a busy machine): each call is one
# run, bounded by 60 s.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

browser_shot() {
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size="$3,$4" --screenshot="$2" "$1" >/dev/null 2>&1
}

browser_dom() {
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --dump-dom "$1" >"$2" 2>/dev/null
}

svg_height() {
  sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$1" | head -1
}

# flame_in_browser SVG FOLDED LABEL: a flame graph (flame.svg or
# flame-diff.svg) and the stacks.folded it draws, in Chromium: a
# screenshot after a click into the widest frame above "all" and Reset
# Zoom (not blank; the two widest frames where stacks.folded puts them, in
# their colour), and the DOM after a click and a search driven by the URL
# fragment (flame.h): the frame fills the width, the others are hidden,
# the search says the share of the matching frames.  Two ok lines.
flame_in_browser() {
  local svg=$1 fold=$2 label=$3 check=$ROOT/tests/mount/flame_check.py id re enc url
  read -r id re < <(python3 "$check" pick "$svg" "$fold")
  enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$re")
  url="file://$svg"
  browser_shot "$url#click=$id&reset=1" "$TESTTMP/shot.png" 1200 "$(svg_height "$svg")"
  if [ -s "$TESTTMP/shot.png" ] && python3 "$check" png "$svg" "$fold" "$TESTTMP/shot.png" >"$TESTTMP/png.out"; then
    echo "ok - Chromium draws $label, widest frames where stacks.folded puts them, after zoom and reset"
  else
    echo "not ok - Chromium draws $label, widest frames where stacks.folded puts them, after zoom and reset"
    sed 's/^/# /' "$TESTTMP/png.out"
  fi
  browser_dom "$url#click=$id&search=$enc" "$TESTTMP/dom.xml"
  if python3 "$check" dom "$svg" "$fold" "$TESTTMP/dom.xml" "$id" >"$TESTTMP/dom.out" 2>&1; then
    echo "ok - $label: clicking $id zooms into it; searching $re highlights and sums the matches"
  else
    echo "not ok - $label: clicking $id zooms into it; searching $re highlights and sums the matches"
    sed 's/^/# /' "$TESTTMP/dom.out" | head -5
  fi
}
