// devtools_oracle.mjs - what Chrome DevTools' own heap snapshot code says of
// a .heapsnapshot: one line per node, "id<TAB>class<TAB>shallow<TAB>retained
// <TAB>dominator id" (the root's dominator: empty), ids in 0x hex as heapfs
// names objects.  The code is DevTools' (front_end/entrypoints/
// heap_snapshot_worker, as the npm package heap-snapshot-toolkit ships it);
// this script only asks it.  Usage: node devtools_oracle.mjs FILE
// The package is looked for under $HEAPFS_ORACLE_DIR (default
// /usr/local/lib/heapfs-oracle, where contrib/install-deps.sh puts it).
import { createReadStream, existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const dir = process.env.HEAPFS_ORACLE_DIR || '/usr/local/lib/heapfs-oracle'
const pkg = `${dir}/node_modules/heap-snapshot-toolkit/index.js`
if (!existsSync(pkg)) {
  console.error(`devtools_oracle: ${pkg} missing: run contrib/install-deps.sh`)
  process.exit(2)
}
const { parse } = await import(pathToFileURL(pkg).href)
const s = await parse(createReadStream(process.argv[2], 'utf-8'))
const node = s.createNode(0)
const hex = (n) => '0x' + n.toString(16)
const out = []
for (let i = 0; i < s.nodeCount; i++) {
  node.nodeIndex = i * s.nodeFieldCount
  const dom = s.dominatorsTree[i]
  const domId = i === s.rootNodeIndexInternal / s.nodeFieldCount
    ? '' : hex(s.nodes.getValue(dom * s.nodeFieldCount + s.nodeIdOffset))
  out.push(`${hex(node.id())}\t${node.className()}\t${node.selfSize()}\t${s.retainedSizes[i]}\t${domId}`)
  if (out.length >= 10000) { process.stdout.write(out.join('\n') + '\n'); out.length = 0 }
}
if (out.length) process.stdout.write(out.join('\n') + '\n')
