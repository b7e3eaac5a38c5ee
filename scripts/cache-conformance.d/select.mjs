// Reads a cache-tests checkout's test list (tests/index.mjs, plain data modules) and prints it
// as JSON, each test marked with its kind (required unless it says optimal or check) and
// whether it runs against a private command-line cache (`run`) or why not (`skip`).
import { pathToFileURL } from 'node:url'

const checkout = process.argv[2]
const { default: suite } = await import(pathToFileURL(`${checkout}/tests/index.mjs`).href)

function skipReason (test) {
  if (test.cdn_only) return 'cdn_only: a CDN-only rule'
  // browser_skip marks shared-cache rules, and the 3xx status tests (a browser's fetch cannot
  // see a redirect's response; a command line can, so those run).
  if (test.browser_skip && !/^status-3\d\d-/.test(test.id)) return 'browser_skip: a shared-cache rule'
  if (test.requests.some(r => 'cache' in r)) return "a fetch() cache mode (Request.cache), browser-only"
  if (test.requests.some(r => 'expected_interim_responses' in r)) return 'interim responses, not seen by the command line'
  return null
}

const out = suite.map(group => ({
  id: group.id,
  tests: group.tests.map(test => {
    const skip = skipReason(test)
    return Object.assign({}, test, { group: group.id, kind: test.kind || 'required', run: skip === null, skip })
  })
}))
process.stdout.write(JSON.stringify(out))
