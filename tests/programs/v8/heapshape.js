// heapshape.js - a Node.js program with a known heap, which writes heap
// snapshots of itself (v8.writeHeapSnapshot) for heapfs's tests.
//   node heapshape.js OUT_PREFIX [PHASES]
// writes OUT_PREFIX.1.heapsnapshot .. OUT_PREFIX.PHASES.heapsnapshot (default
// 3) and prints, as "key value" lines, what a test checks against:
//   - 1000 instances of class Foo, each with a number and a string field;
//   - a closure keepBig() capturing a 100000-element array of doubles;
//   - a Map of 500 Entry objects, keys "k0".."k499";
//   - a chain of 200 Link objects (head in globalThis.chain);
//   - a leak: 300 Leak objects pushed to a global array before each
//     snapshot but the first (snapshot 1: 0, 2: 300, 3: 600), and a
//     short-lived batch of Temp objects made and dropped between them.
'use strict'
const v8 = require('v8')
const prefix = process.argv[2]
const phases = Number(process.argv[3] || 3)

class Foo { constructor (i) { this.n = i; this.label = 'foo-' + i } }
class Entry { constructor (i) { this.value = i } }
class Link { constructor (next) { this.next = next } }
class Leak { constructor (i) { this.i = i; this.payload = new Array(16).fill(i) } }
class Temp { constructor (i) { this.i = i } }

globalThis.foos = []
for (let i = 0; i < 1000; i++) globalThis.foos.push(new Foo(i))

function makeKeeper () { // the context holding big is keepBig's alone
  const big = new Array(100000)
  for (let i = 0; i < big.length; i++) big[i] = i + 0.5
  return function keepBig () { return big.length }
}
globalThis.keepBig = makeKeeper()

globalThis.entries = new Map()
for (let i = 0; i < 500; i++) globalThis.entries.set('k' + i, new Entry(i))

let chain = null
for (let i = 0; i < 200; i++) chain = new Link(chain)
globalThis.chain = chain
globalThis.marker = ['heapfs-marker', 'string', String(process.pid)].join('-')

globalThis.leaks = []
for (let p = 1; p <= phases; p++) {
  if (p > 1) {
    for (let i = 0; i < 300; i++) globalThis.leaks.push(new Leak(i))
    let temps = []
    for (let i = 0; i < 300; i++) temps.push(new Temp(i))
    temps = null
  }
  const file = `${prefix}.${p}.heapsnapshot`
  v8.writeHeapSnapshot(file)
  console.log('snapshot', file)
}
console.log('marker', globalThis.marker)
