// detached.js - a heap snapshot of a Chrome page with a known number of
// detached DOM nodes, taken by headless chromium through the DevTools
// protocol (HeapProfiler.takeHeapSnapshot), as DevTools' Memory panel takes
// one.  Node's standard library only: the protocol runs over a pipe
// (--remote-debugging-pipe: chromium reads commands on its fd 3 and writes
// replies and events on its fd 4, each message JSON ended by a NUL).
//
// The page (page.html beside this script, copied into DIR) keeps from
// globals 100 divs taken out of the document (window.detachedDivs) and a
// subtree of 50 nodes (a section with 49 spans, window.detachedTree), and
// leaves 10 divs attached.
//
// Usage: node detached.js DIR OUT
//   DIR: a fresh directory for the browser's profile and the page
//   OUT: the .heapsnapshot to write
// Exits 0 when OUT is written; 2 when chromium is missing; 1 on any other
// failure, with one line on stderr.  Gives up after 60 s (a hung browser
// must not hang the tests), killing the browser.
'use strict'
const { spawn, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const [dir, out] = process.argv.slice(2)
if (!dir || !out) {
  console.error('usage: node detached.js DIR OUT')
  process.exit(1)
}

function which (name) {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim()
  } catch (e) {
    return ''
  }
}
const browser = process.env.CHROMIUM || which('chromium') || which('chromium-browser')
if (!browser) {
  console.error('detached.js: chromium is not installed')
  process.exit(2)
}

fs.mkdirSync(path.join(dir, 'profile'), { recursive: true })
const page = path.join(dir, 'page.html')
fs.copyFileSync(path.join(__dirname, 'page.html'), page)

const args = [
  '--headless', '--disable-gpu', '--remote-debugging-pipe', '--no-first-run',
  '--no-default-browser-check', '--disable-extensions', '--disable-background-networking',
  '--disable-dev-shm-usage', '--mute-audio', `--user-data-dir=${path.join(dir, 'profile')}`
]
if (process.getuid && process.getuid() === 0) args.push('--no-sandbox')
args.push('about:blank')
const child = spawn(browser, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] })
let stderr = ''
child.stderr.on('data', (b) => { stderr = (stderr + b).slice(-2000) })

function fail (why) {
  console.error(`detached.js: ${why}`)
  if (stderr) console.error(stderr.trim().split('\n').slice(-3).map((l) => `  ${l}`).join('\n'))
  child.kill('SIGKILL')
  process.exit(1)
}
const timer = setTimeout(() => fail('chromium took more than 60 s'), 60000)
child.on('exit', (code, sig) => fail(`chromium ended early (${sig || code})`))
child.on('error', (e) => fail(`chromium does not start: ${e.message}`))

// ---- the protocol: commands, their replies, events ----
const toBrowser = child.stdio[3]
const fromBrowser = child.stdio[4]
let nextId = 1
const waiting = new Map()
const listeners = []
let pending = Buffer.alloc(0)
for (const pipe of [toBrowser, fromBrowser]) {
  pipe.on('error', (e) => fail(`the protocol pipe: ${e.message} (chromium ended?)`))
}
fromBrowser.on('data', (b) => {
  pending = Buffer.concat([pending, b])
  let nul
  while ((nul = pending.indexOf(0)) >= 0) {
    const msg = JSON.parse(pending.subarray(0, nul).toString('utf8'))
    pending = pending.subarray(nul + 1)
    if (msg.id && waiting.has(msg.id)) {
      const { resolve, reject, method } = waiting.get(msg.id)
      waiting.delete(msg.id)
      if (msg.error) reject(new Error(`${method}: ${msg.error.message}`))
      else resolve(msg.result)
    } else if (msg.method) {
      for (const l of listeners) l(msg)
    }
  }
})

function send (method, params = {}, sessionId) {
  const id = nextId++
  const msg = { id, method, params }
  if (sessionId) msg.sessionId = sessionId
  toBrowser.write(JSON.stringify(msg) + '\0')
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject, method }))
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function main () {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' })
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true })
  await send('Page.enable', {}, sessionId)
  await send('Page.navigate', { url: 'file://' + page }, sessionId)
  let ready = false
  for (let i = 0; i < 200 && !ready; i++) {
    const r = await send('Runtime.evaluate', { expression: 'window.pageReady === true' }, sessionId)
    ready = r.result && r.result.value === true
    if (!ready) await sleep(50)
  }
  if (!ready) throw new Error('the page never set window.pageReady')

  const fd = fs.openSync(out, 'w')
  listeners.push((msg) => {
    if (msg.method === 'HeapProfiler.addHeapSnapshotChunk' && msg.sessionId === sessionId) {
      fs.writeSync(fd, msg.params.chunk)
    }
  })
  await send('HeapProfiler.enable', {}, sessionId)
  await send('HeapProfiler.collectGarbage', {}, sessionId)
  await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, sessionId)
  fs.closeSync(fd)
  child.removeAllListeners('exit')
  await send('Browser.close').catch(() => {})
  clearTimeout(timer)
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000)
  child.on('exit', () => clearTimeout(killer))
}

main().catch((e) => fail(e.message))
