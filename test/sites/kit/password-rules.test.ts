// The rules that refuse a guessable password (NIST SP 800-63B: repetitive or sequential characters,
// context-specific words, and zxcvbn-ts below 3), called directly: each refusal names its rule.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { passwordProblem } from '../../../src/kernel/passwords.js'

// test/helpers/portal.ts's GOOD_PASSWORD; not imported, so these tests need no app (the harness loads every route).
const GOOD_PASSWORD = 'correct horse battery staple'
const EMAIL = 'johnathan.smith@example.com'

/** Asserts that each password is refused with a message matching `reason`, and that no message echoes it. */
function refused(passwords: string[], reason: RegExp, email?: string) {
  for (const password of passwords) {
    const problem = passwordProblem(password, { email })
    assert.match(problem ?? 'accepted', reason, password)
    assert.ok(!problem!.toLowerCase().includes(password.toLowerCase()), `the message does not repeat ${password}`)
  }
}

test('one character repeated is refused, emoji and spaced-out ones too', () => {
  refused(
    ['aaaaaaaaaaaaaaa', 'AAAAAAAAAAAAAAAA', '🐶'.repeat(15), 'aaa aaa aaa aaa', '111111111111111'],
    /^This password repeats one character/,
  )
})

test('a group of characters said over again is refused', () => {
  refused(
    ['abcabcabcabcabc', '123123123123123', 'xy-xy-xy-xy-xy-xy', 'superman superman'],
    /^This password repeats a group of characters/,
  )
})

test('a simple sequence is refused: digits, letters, up or down, keyboard rows, and runs of them', () => {
  refused(
    [
      '123456789012345',
      'abcdefghijklmnop',
      'ABCDEFGHIJKLMNOP',
      'zyxwvutsrqponmlk',
      '987654321098765',
      'qwertyuiopasdfgh',
      'qwerty123456789!',
      'abcdef987654321xyz',
      '1-2-3-4-5-6-7-8-9',
    ],
    /^This password is a simple sequence/,
  )
})

test('the email address anywhere in the password is refused', () => {
  refused(
    [EMAIL, `${EMAIL}!`, `my address is ${EMAIL}`, 'Johnathan.Smith@Example.com'],
    /^This password contains your email address/,
    EMAIL,
  )
})

test('the local part of the email alone or with up to 4 letters or digits added is refused', () => {
  refused(
    ['johnathan.smith', 'JohnathanSmith!!', 'Johnathan.Smith2024!', '--johnathan_smith--', 'johnathansmithxy'],
    /^This password is made from your email address/,
    EMAIL,
  )
  // With 5 added it is no longer this rule's: zxcvbn, given the address, still finds it easy to guess.
  assert.match(
    passwordProblem('johnathan.smith12345', { email: EMAIL }) ?? 'accepted',
    /^This password is too easy to guess: .*personal/,
  )
  // Without an address the same local parts are nobody's: judged on their own.
  assert.equal(passwordProblem('Johnathan.Smith2024!'), undefined)
})

test("the product's name is refused, in any case and spelling", () => {
  refused(
    [
      'Petstore forever and ever',
      'my pet store password',
      'the PET-STORE login',
      'mypetstore2024!!',
      'pet_store is fine',
    ],
    /^This password contains the product's name \(Petstore\)/,
  )
  // Its letters spread over words are not the name.
  assert.equal(passwordProblem('pets to rent in town'), undefined)
})

test('zxcvbn-ts below 3 is refused with its warning and suggestion', () => {
  assert.equal(
    passwordProblem('iloveyou12345678'),
    'This password is too easy to guess: This is similar to a commonly used password. ' +
      'Add more words that are less common. A few unrelated words make a strong one.',
  )
  refused(
    ['Password12345678', 'monkey-monkey-99', '1q2w3e4r5t6y7u8i', 'l3tm31n!l3tm31n!x'],
    /^This password is too easy to guess: \S/,
  )
})

test('long random passphrases and the test suite’s passwords are accepted, with or without an address', () => {
  for (const password of [
    'violet-harbor-quartz-lantern',
    GOOD_PASSWORD,
    'just some words',
    '🐶🐱🐭🐹🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵',
    'a brand new long password',
  ]) {
    assert.equal(passwordProblem(password), undefined, password)
    assert.equal(passwordProblem(password, { email: EMAIL }), undefined, password)
  }
})

test('a long password of digits and symbols is judged in well under a second (zxcvbn is bounded)', () => {
  passwordProblem('warm up the estimator once')
  for (const password of [
    '1q2w3e4r5t6y7u8i9o0p'.repeat(7).slice(0, 128),
    '4@8(3&6#!1|<0)9$5+7%2'.repeat(7).slice(0, 128),
  ]) {
    const start = performance.now()
    passwordProblem(password, { email: EMAIL })
    const ms = performance.now() - start
    assert.ok(ms < 600, `${ms.toFixed(0)} ms for a ${password.length}-character password`)
  }
})
