// What the account page and its actions look up first: the account (404 page when unknown; 400 when an action
// meets a deleted one), a key of that account (400 otherwise), and the current bans of keys.
import { NotFoundError, type Account, type ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { keySubject } from '../../modules/limits/rate-limiter.js'
import { PageError } from '../kit/reply.js'
import type { OperatorConsole } from './console.context.js'

/** The account, or the 404 page. */
export async function accountOr404(c: Pick<OperatorConsole, 'accounts'>, id: string): Promise<Account> {
  try {
    return await c.accounts.getAccount(id)
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new PageError(404, 'No such account', `There is no account with the id ${id}.`)
    throw error
  }
}

/** The account an action is for, which must not be deleted (nothing can be changed on a deleted account). */
export async function liveAccount(c: Pick<OperatorConsole, 'accounts'>, id: string): Promise<Account> {
  const account = await accountOr404(c, id)
  if (account.deletedAt !== null)
    throw new PageError(
      400,
      'Account deleted',
      `The account ${account.id} was deleted: nothing can be changed on it any more.`,
    )
  return account
}

/** A key of that account: another account's key is refused exactly like one that does not exist. */
export async function keyOf(
  c: Pick<OperatorConsole, 'accounts'>,
  account: Account,
  keyId: string,
): Promise<ApiKeyInfo> {
  try {
    const key = await c.accounts.getApiKey(keyId)
    if (key.accountId === account.id) return key
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error
  }
  throw new PageError(
    400,
    'No such key',
    `The account ${account.id} has no key with the id ${keyId}. Nothing was changed.`,
  )
}

/** key id -> the end of its current ban (ISO), for the keys that are banned now (bans live in the rate-limit store). */
export async function bansOf(
  c: Pick<OperatorConsole, 'limiter'>,
  keyIds: string[],
  now: number,
): Promise<Map<string, string>> {
  const bans = new Map<string, string>()
  for (const keyId of keyIds) {
    const until = await c.limiter.store.bannedUntil({ subject: keySubject(keyId), now })
    if (until !== undefined) bans.set(keyId, new Date(until).toISOString())
  }
  return bans
}

/**
 * The mailer, where this console can mail an account's owner: MAIL_URL set and the portal on (every link mailed to an
 * owner leads there). Otherwise the 400 page; the account page shows no such action then.
 */
export function ownerMailer(c: Pick<OperatorConsole, 'mailer' | 'config'>): NonNullable<OperatorConsole['mailer']> {
  if (c.mailer && c.config.portal) return c.mailer
  throw new PageError(
    400,
    'No mail from this console',
    'This console sends no mail to account owners: the portal is off here (PORTAL), or no MAIL_URL is set.',
  )
}

export const canMail = (c: Pick<OperatorConsole, 'mailer' | 'config'>): boolean => !!c.mailer && c.config.portal
