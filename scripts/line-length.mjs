// `npm run lint`'s line check: no line of code, comment or string over 120 characters, which the formatter cannot
// enforce alone (it leaves comments and string literals as written). Markdown and generated files are not code
// (their tables are data), so they are not checked. Prints each long line as FILE:LINE: LENGTH; exits 1 if any.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const MAX = 120
const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  encoding: 'utf8',
})
const files = listed.split('\0').filter((f) => /\.(ts|mjs|cjs|js)$/.test(f) && !f.startsWith('sdk/src/generated/'))
let long = 0
for (const file of files) {
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    continue // listed by git but deleted in the working tree
  }
  text.split('\n').forEach((line, i) => {
    if ([...line].length <= MAX) return
    long++
    process.stdout.write(`${file}:${i + 1}: ${[...line].length} characters (the most is ${MAX})\n`)
  })
}
if (long > 0) {
  process.stdout.write(`${long} lines over ${MAX} characters\n`)
  process.exit(1)
}
