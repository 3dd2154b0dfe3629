#!/usr/bin/env python3
"""flame_check.py - checks a mounted flame.svg against its stacks.folded.

  flame_check.py check SVG FOLDED        frames add up to stacks.folded
  flame_check.py diff SVG BEFORE         flame-diff.svg: each frame's data-b is
                                         the sum of the earlier stacks.folded
                                         under its path; hover text and colour
                                         say the change
  flame_check.py pick SVG FOLDED         prints "ID REGEX": the widest frame
                                         above "all", by stacks.folded
  flame_check.py dom SVG FOLDED DOM ID   the DOM after #click=ID&search=REGEX
  flame_check.py png SVG FOLDED PNG      a screenshot: not blank, the two
                                         widest frames above "all" where
                                         stacks.folded puts them

Prints one line per problem and exits 1 when there is any.  The layout
rules (flame.h): width 1200, margins 10, frames 16 high, root at the
bottom, 40 px above the frames and 24 below; siblings by name, those
narrower than total/1000 last.
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = '{http://www.w3.org/2000/svg}'
W, PAD, TOP, FOOT, FH = 1200, 10, 40, 24, 16
problems = []


def folded(path):
    lines = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for ln in f:
            stack, _, v = ln.rstrip('\n').rpartition(' ')
            lines.append((stack.split(';'), int(v)))
    return lines


def frames(root):
    out = []
    for g in root.iter(NS + 'g'):
        if 'f' not in g.get('class', '').split():
            continue
        t = g.find(NS + 'title').text
        out.append(dict(id=g.get('id'), x=int(g.get('data-x')), v=int(g.get('data-v')),
                        d=int(g.get('data-d')), m=g.get('data-m') == '1',
                        name=t[:t.rfind(' (')], g=g))
    return out


def level1(lines):
    """Frames right above "all", by stacks.folded: name -> (offset, value)."""
    total = sum(v for _, v in lines)
    sums = {}
    for st, v in lines:
        sums[st[0]] = sums.get(st[0], 0) + v
    order = sorted(sums, key=lambda n: (sums[n] * 1000 < total, n.encode()))
    out, off = {}, 0
    for n in order:
        out[n] = (off, sums[n])
        off += sums[n]
    return total, out


def check(svg, fold):
    text = open(svg, encoding='utf-8').read()
    if text.count('http') != 1 or 'xmlns="http://www.w3.org/2000/svg"' not in text:
        problems.append('a reference other than the SVG namespace')
    if 'href' in text:
        problems.append('an href')
    fs = frames(ET.parse(svg).getroot())
    lines = folded(fold)
    total = sum(v for _, v in lines)
    prefix = {}
    for st, v in lines:
        for k in range(1, len(st) + 1):
            p = tuple(st[:k])
            prefix[p] = prefix.get(p, 0) + v
    if total == 0:
        if fs:
            problems.append('frames for an empty stacks.folded')
        return
    if not fs or fs[0]['d'] != 0 or fs[0]['v'] != total:
        problems.append('"all" is not the sum of stacks.folded (%d)' % total)
        return
    path = {fs[0]['id']: ()}
    by_depth = {}
    for f in fs:
        by_depth.setdefault(f['d'], []).append(f)
    for d in sorted(by_depth)[1:]:
        for f in by_depth[d]:
            parents = [p for p in by_depth.get(d - 1, []) if not p['m'] and
                       p['x'] <= f['x'] and f['x'] + f['v'] <= p['x'] + p['v']]
            if len(parents) != 1:
                problems.append('%s: %d parents' % (f['id'], len(parents)))
                continue
            p = parents[0]
            kids = sum(k['v'] for k in by_depth[d] if p['x'] <= k['x'] < p['x'] + p['v'])
            if kids > p['v']:
                problems.append('%s: children add up to more than it' % p['id'])
            if f['m']:
                continue
            path[f['id']] = path[p['id']] + (f['name'],)
            want = prefix.get(path[f['id']])
            if want != f['v']:
                problems.append('%s %s: %d, stacks.folded says %s' % (f['id'], ';'.join(path[f['id']]), f['v'], want))
    print('# %d frames, %d bytes' % (len(fs), total))


def paths(fs):
    """Frame id -> path of names from "all" (merged frames left out)."""
    by_depth, path = {}, {}
    for f in fs:
        by_depth.setdefault(f['d'], []).append(f)
    for d in sorted(by_depth):
        for f in by_depth[d]:
            if d == 0:
                path[f['id']] = ()
                continue
            ps = [p for p in by_depth.get(d - 1, []) if p['id'] in path and
                  p['x'] <= f['x'] and f['x'] + f['v'] <= p['x'] + p['v']]
            if len(ps) == 1 and not f['m']:
                path[f['id']] = path[ps[0]['id']] + (f['name'],)
    return path


def diff(svg, before):
    fs = frames(ET.parse(svg).getroot())
    prefix = {(): 0}
    for st, v in folded(before):
        prefix[()] += v
        for k in range(1, len(st) + 1):
            prefix[tuple(st[:k])] = prefix.get(tuple(st[:k]), 0) + v
    grew = shrank = 0
    pth = paths(fs)
    for f in fs:
        if f['m']:
            continue
        p = pth.get(f['id'])
        b = int(f['g'].get('data-b'))
        if p is None:
            problems.append('%s: no single parent' % f['id'])
        elif prefix.get(p, 0) != b:
            problems.append('%s %s: before %d, the earlier stacks.folded says %d' % (f['id'], ';'.join(p), b, prefix.get(p, 0)))
        t = f['g'].find(NS + 'title').text
        ch = f['v'] - b
        want = '; before %d bytes; change %s%d bytes)' % (b, '-' if ch < 0 else '+', abs(ch))
        if not t.endswith(want):
            problems.append('%s: title "%s" lacks "%s"' % (f['id'], t, want))
        r, g, bl = (int(c) for c in re.findall(r'\d+', f['g'].find(NS + 'rect').get('fill')))
        if ch > 0 and not (r == 255 and g == bl and g < 250):
            problems.append('%s grew by %d but is rgb(%d,%d,%d)' % (f['id'], ch, r, g, bl))
        if ch < 0 and not (bl == 255 and r == g and r < 250):
            problems.append('%s shrank by %d but is rgb(%d,%d,%d)' % (f['id'], -ch, r, g, bl))
        if ch == 0 and (r, g, bl) != (255, 250, 250):
            problems.append('%s unchanged but is rgb(%d,%d,%d)' % (f['id'], r, g, bl))
        grew += ch > 0
        shrank += ch < 0
    print('# %d frames: %d grew, %d shrank' % (len(fs), grew, shrank))


def pick(svg, fold):
    total, l1 = level1(folded(fold))
    top = max(l1, key=lambda n: l1[n][1])
    f = [f for f in frames(ET.parse(svg).getroot()) if f['d'] == 1 and f['name'] == top]
    print(f[0]['id'], '^' + re.escape(top) + '$')


def num(el, attr):
    return float(el.get(attr))


def dom(svg, fold, dompath, zid):
    orig = frames(ET.parse(svg).getroot())
    root = ET.parse(dompath).getroot()
    now = {f['id']: f for f in frames(root)}
    z = now[zid]
    if root.get('data-zoom') != zid:
        problems.append('data-zoom is %s, not %s' % (root.get('data-zoom'), zid))
    rect = z['g'].find(NS + 'rect')
    if abs(num(rect, 'x') - PAD) > 0.1 or abs(num(rect, 'width') - (W - 2 * PAD)) > 0.1:
        problems.append('zoomed frame not full width')
    for f in now.values():
        shown = 'display: none' not in (f['g'].get('style') or '')
        inside = f['d'] >= z['d'] and z['x'] <= f['x'] and f['x'] + f['v'] <= z['x'] + z['v']
        below = f['d'] < z['d'] and f['x'] <= z['x'] and z['x'] + z['v'] <= f['x'] + f['v']
        if shown != (inside or below):
            problems.append('%s: shown %s after zoom' % (f['id'], shown))
        if inside:
            w = num(f['g'].find(NS + 'rect'), 'width')
            if abs(w - f['v'] * (W - 2 * PAD) / z['v']) > 0.1:
                problems.append('%s: width %.1f after zoom' % (f['id'], w))
    # Search ^NAME$: the matching frames' union, as frames of the picture.
    name = z['name']
    iv = sorted(((f['x'], f['v']) for f in orig if f['name'] == name), key=lambda i: (i[0], -i[1]))
    want, end = 0, -1
    for x, v in iv:
        if x >= end:
            want, end = want + v, x + v
    if root.get('data-matched') != str(want):
        problems.append('matched %s, want %d' % (root.get('data-matched'), want))
    hl = [f['id'] for f in now.values() if ('match' in f['g'].get('class').split()) != (f['name'] == name)]
    if hl:
        problems.append('highlight wrong on %s' % hl[:3])
    mt = [t for t in root.iter(NS + 'text') if t.get('id') == 'matched'][0].text or ''
    pct = '%.2f%%' % (100.0 * want / int(root.get('data-total')))
    if pct not in mt:
        problems.append('matched line "%s" lacks %s' % (mt, pct))


def png_decode(path):
    """A non-interlaced 8-bit PNG: (width, height, colour type, channels,
    rows of unfiltered bytes)."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body[:13])
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    assert depth == 8 and interlace == 0, 'PNG depth %d, interlace %d' % (depth, interlace)
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, ctype, bpp, rows


def png_pixels(path):
    w, h, ctype, bpp, rows = png_decode(path)
    assert ctype in (2, 6), 'PNG type %d' % ctype
    return w, h, lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])


def png(svg, fold, pngpath):
    root = ET.parse(svg).getroot()
    fill = {f['name']: f['g'].find(NS + 'rect').get('fill') for f in frames(root) if f['d'] == 1}
    total, l1 = level1(folded(fold))
    w, h, px = png_pixels(pngpath)
    colours = {px(x, y) for y in range(0, h, 3) for x in range(0, w, 3)}
    if len(colours) < 10:
        problems.append('blank picture: %d colours' % len(colours))
    maxd = (h - TOP - FOOT) // FH - 1
    y = TOP + (maxd - 1) * FH + 1
    scale = (W - 2 * PAD) / total
    widest = sorted(l1, key=lambda n: -l1[n][1])[:2]
    for n in widest:
        off, v = l1[n]
        if v * scale < 4:
            continue
        x = int(PAD + (off + v / 2) * scale)
        want = tuple(int(c) for c in re.findall(r'\d+', fill[n]))
        got = px(x, y)
        if max(abs(a - b) for a, b in zip(want, got)) > 3:
            problems.append('%s: pixel (%d,%d) is %s, not its colour %s' % (n, x, y, got, want))
    print('# %dx%d, %d colours' % (w, h, len(colours)))


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    {'check': check, 'diff': diff, 'pick': pick, 'dom': dom, 'png': png}[cmd](*args)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
