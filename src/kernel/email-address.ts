// One mailbox per email field. A string a mail library would read as several recipients (a comma, a display
// name, angle brackets, a quoted local part) is refused, so nobody can have our mail sent to a second address.
// The domain is lower-cased and IDNA-normalised (UTS #46, through the WHATWG URL rules Node implements), so
// `bücher.example` and `xn--bcher-kva.example` are one account. Local parts are printable ASCII only: SMTPUTF8
// is not something every receiving server speaks.
import { domainToASCII } from 'node:url'

const EMAIL_MAX = 254
const LOCAL_MAX = 64

/** The characters RFC 5322 allows in an unquoted local part ("atext"), and dots between them. */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

type ParsedEmail = { email: string; key: string } | { problem: string }

const EXAMPLE = 'Enter one email address, like name@example.com.'

/** The address as we store and mail it (`local@ascii-domain`) and the key it is unique by, or why it is refused. */
export function parseEmailAddress(raw: string): ParsedEmail {
  // Browsers trim an email field; so do we. Whitespace inside is refused below.
  const value = raw.trim()
  if (value === '') return { problem: EXAMPLE }
  // Control characters (also DEL and the C1 range) and any whitespace: never part of one plain address.
  if (/[\p{Cc}\p{Cf}\p{Z}\s]/u.test(value))
    return {
      problem:
        'An email address cannot contain spaces or invisible characters: enter one address, like name@example.com.',
    }
  if (/[,;<>()[\]"\\:]/.test(value))
    return {
      problem: 'Enter a single address without a name, quotes, brackets, commas or semicolons, like name@example.com.',
    }
  const at = value.lastIndexOf('@')
  if (at <= 0 || at === value.length - 1 || value.indexOf('@') !== at) return { problem: EXAMPLE }
  const local = value.slice(0, at)
  const domainInput = value.slice(at + 1)
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(local))
    return {
      problem:
        'The part before the @ must use plain ASCII letters, digits and . _ + - (addresses with other characters ' +
        'there are not supported).',
    }
  if (local.length > LOCAL_MAX || !LOCAL_PART.test(local)) return { problem: EXAMPLE }
  const domain = domainToASCII(domainInput.toLowerCase())
  const labels = domain.split('.')
  if (domain === '' || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    return { problem: 'The part after the @ must be a domain name with a dot, like example.com.' }
  }
  const email = `${local}@${domain}`
  if (email.length > EMAIL_MAX) return { problem: `An email address has at most ${EMAIL_MAX} characters.` }
  return { email, key: email.toLowerCase() }
}

/** The unique key of an address already parsed or stored (lower-cased); a raw input goes through parseEmailAddress. */
export const emailKeyOf = (raw: string): string => {
  const parsed = parseEmailAddress(raw)
  return 'key' in parsed ? parsed.key : raw.trim().toLowerCase()
}
