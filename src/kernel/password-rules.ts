// The rules that refuse a guessable password, as NIST SP 800-63B asks ("repetitive or sequential characters,
// context-specific words"), with no composition rules. Each returns the message the form shows, naming the rule,
// or undefined. No message repeats any part of the password (pages and logs must not hold it).
import { createRequire } from 'node:module'

// zxcvbn-ts and its dictionaries are loaded when a password is first judged, not at start: loading them took
// ~0.2 s of every start, most of which never judges a password.
const require = createRequire(import.meta.url)

const PRODUCT_NAME = 'Petstore'
/** The lowest zxcvbn score (0–4) accepted: 3 is "safely unguessable" (about 10^10 guesses) in zxcvbn's terms. */
const MIN_STRENGTH = 3
/** How many letters or digits may be added to the email's local part before it stops being "the local part". */
const EMAIL_SLACK = 4

const LESS_PREDICTABLE = 'choose something less predictable, such as a few unrelated words.'

/** Letters and digits only, lower-cased: "Weak.Example-Com!" and "weakexamplecom" are the same guess. */
const compact = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '')

/** The forms of the password the pattern rules look at: as typed (by code point, so emoji count once) and compacted. */
function forms(password: string): string[][] {
  const typed = [...password.normalize('NFKC').toLowerCase()]
  const letters = [...compact(password)]
  return letters.length >= 3 ? [typed, letters] : [typed]
}

/** `aaaa…`, `abcabcabc…`, `superman superman`: the whole password is one unit said twice or more. */
export function repetitionProblem(password: string): string | undefined {
  for (const chars of forms(password)) {
    if (chars.every((c) => c === chars[0])) return `This password repeats one character; ${LESS_PREDICTABLE}`
    for (let unit = 2; unit <= chars.length / 2; unit++) {
      if (chars.length % unit === 0 && chars.every((c, i) => c === chars[i % unit])) {
        return `This password repeats a group of characters (like "abcabcabc" or a word twice); ${LESS_PREDICTABLE}`
      }
    }
  }
  return undefined
}

// Orders a run can follow up or down. Digits and letters wrap (…8, 9, 0, 1…; …y, z, a…); the keyboard's letter rows
// follow one another as they are typed (…o, p, a, s…).
const ORDERS = [
  { chars: '0123456789', wraps: true },
  { chars: 'abcdefghijklmnopqrstuvwxyz', wraps: true },
  { chars: 'qwertyuiopasdfghjklzxcvbnm', wraps: false },
]

function follows(a: string, b: string, order: (typeof ORDERS)[number], step: 1 | -1): boolean {
  const i = order.chars.indexOf(a)
  const j = order.chars.indexOf(b)
  if (i < 0 || j < 0) return false
  return order.wraps ? (i + step + order.chars.length) % order.chars.length === j : i + step === j
}

/**
 * `123456789012345`, `abcdefghijklmnop`, `qwertyuiop…`, `abcdef987654`: the letters and digits are runs of at least 3,
 * each going up or down one order. Runs are taken greedily, each as long as it goes.
 */
function isSequence(chars: string[]): boolean {
  let start = 0
  while (start < chars.length) {
    let ways = ORDERS.flatMap((order) => [1, -1].map((step) => ({ order, step: step as 1 | -1 })))
    let end = start + 1
    while (end < chars.length) {
      const next = ways.filter((w) => follows(chars[end - 1]!, chars[end]!, w.order, w.step))
      if (next.length === 0) break
      ways = next
      end++
    }
    if (end - start < 3) return false
    start = end
  }
  return chars.length > 0
}

export function sequenceProblem(password: string): string | undefined {
  if (!isSequence([...compact(password)])) return undefined
  return `This password is a simple sequence (like "12345", "abcdef" or a row of the keyboard); ${LESS_PREDICTABLE}`
}

/**
 * The address anywhere in the password is refused: it is no secret. Its local part is refused alone or with up to
 * EMAIL_SLACK letters or digits added (`janedoe2024`); both compared as letters and digits only, so punctuation around
 * or inside (`jane.doe!!`) changes nothing. A local part shorter than 3 is too short to tell from chance.
 */
export function emailProblem(password: string, email: string | undefined): string | undefined {
  if (!email?.includes('@')) return undefined
  const letters = compact(password)
  const address = compact(email)
  const local = compact(email.slice(0, email.lastIndexOf('@')))
  if (address.length >= 3 && letters.includes(address))
    return `This password contains your email address; ${LESS_PREDICTABLE}`
  if (local.length >= 3 && letters.includes(local) && letters.length - local.length <= EMAIL_SLACK) {
    return `This password is made from your email address (the part before @) with little added; ${LESS_PREDICTABLE}`
  }
  return undefined
}

/**
 * "Petstore" anywhere, in any case, also as "pet store", "Pet-Store", "pet_store" ("mypetstore2024!!" is a guess an
 * attacker tries early, and zxcvbn scores it 3). The price: "carpet stores" is refused too, with a message that says
 * why; letters spread over words ("pets to rent") are not.
 */
export function productNameProblem(password: string): string | undefined {
  const spaced = password.normalize('NFKC').toLowerCase()
  if (!/pet[^\p{L}\p{N}]{0,2}store/u.test(spaced)) return undefined
  return `This password contains the product's name (${PRODUCT_NAME}); ${LESS_PREDICTABLE}`
}

/** Words zxcvbn treats as known to an attacker: the address, its parts, and the product's name. */
function userInputs(email: string | undefined): string[] {
  const words = [PRODUCT_NAME, 'pet store']
  if (!email) return words
  const [local = '', domain = ''] = [email.slice(0, email.lastIndexOf('@')), email.slice(email.lastIndexOf('@') + 1)]
  return [...words, email, local, ...local.split(/[._+-]+/), ...domain.split('.').slice(0, -1)].filter(
    (w) => w.length >= 3,
  )
}

export type StrengthEstimator = (password: string, email: string | undefined) => string | undefined

/**
 * zxcvbn-ts with its common and English dictionaries and keyboard graphs. Building it reads the dictionaries
 * (~0.3 s), so make one per process and keep it. A check runs on the event loop, for a form anyone may post: with
 * zxcvbn's defaults a 128-character password full of digits and symbols took 1–2 s (every l33t reading of it is
 * matched against every dictionary). Judging the first 64 characters with at most 10 l33t substitutions bounds
 * that to about 0.1 s, and a typical password takes a few ms; 64 characters that are weak still fail, and a
 * password whose first 64 are strong is strong.
 */
export function strengthEstimator(): StrengthEstimator {
  const { ZxcvbnFactory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core')
  const { adjacencyGraphs, dictionary: commonDictionary } =
    require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common')
  const { dictionary: englishDictionary, translations } =
    require('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en')
  const zxcvbn = new ZxcvbnFactory({
    dictionary: { ...commonDictionary, ...englishDictionary },
    graphs: adjacencyGraphs,
    translations,
    maxLength: 64,
    l33tMaxSubstitutions: 10,
  })
  return (password, email) => {
    const { score, feedback } = zxcvbn.check(password, userInputs(email))
    if (score >= MIN_STRENGTH) return undefined
    const advice = [feedback.warning, ...feedback.suggestions].filter(Boolean).join(' ')
    return (
      `This password is too easy ` +
      `to guess: ${advice || 'password-guessing tools would find it early.'} A few unrelated words make a strong one.`
    )
  }
}
