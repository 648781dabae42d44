// /portal/activity: the account's own audit entries in plain words, newest first. Who made each change: the
// integrator (by the address it had then, and the client address it came from), "Operator" for the people who run
// the service (never their email or address, whether they used the console or the command line), or the service
// itself. What changed is said in words for each action; nothing here names an operator.
import type { AuditAction, AuditEvent } from '../../modules/audit/audit-event.js'
import { html, type Html } from '../kit/html.js'
import { when, whenCell } from '../kit/when.js'

const ACTIONS: Record<AuditAction, string> = {
  'account.created': 'Account created',
  'account.verified': 'Email address verified',
  'account.email_changed': 'Email address changed',
  'account.password_changed': 'Password changed',
  'account.plan_changed': 'Plan changed',
  'account.suspended': 'Account suspended',
  'account.reactivated': 'Account reactivated',
  'account.deleted': 'Account deleted',
  'account.verification_resent': 'Verification link sent again',
  'account.invitation_sent': 'Link to choose a password sent',
  'account.totp_added': 'Authenticator app added',
  'account.totp_removed': 'Authenticator app removed',
  'account.passkey_added': 'Passkey added',
  'account.passkey_removed': 'Passkey removed',
  'account.passkey_clone_refused': 'Passkey refused: it may have been copied',
  'account.recovery_codes_regenerated': 'New recovery codes made',
  'account.recovery_code_used': 'Recovery code used',
  'account.second_factor_locked': 'Two-factor log-in locked after too many wrong codes',
  'account.second_factors_reset': 'Two-factor log-in reset by an operator',
  'account.two_factor_required': 'Two-factor log-in requirement changed',
  'member.invited': 'Member invited',
  'member.invitation_revoked': 'Invitation revoked',
  'member.joined': 'Member joined',
  'member.role_changed': 'Member role changed',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'key.created': 'Key created',
  'key.rolled': 'Key rolled',
  'key.revoked': 'Key revoked',
  'key.expiry_changed': 'Key expiry changed',
  'key.scopes_restricted': 'Key permissions narrowed',
  'ban.lifted': 'Key ban lifted',
  'operator.created': 'Operator change',
  'operator.setup_completed': 'Operator change',
  'operator.disabled': 'Operator change',
  'operator.role_changed': 'Operator change',
  'operator.login': 'Operator change',
  'operator.login_failed': 'Operator change',
  'plan_request.created': 'Higher plan requested',
  'plan_request.approved': 'Plan request approved',
  'plan_request.declined': 'Plan request declined',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.updated': 'Webhook endpoint changed',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'webhook_endpoint.secret_rotated': 'Webhook signing secret rotated',
  'webhook_endpoint.disabled': 'Webhook endpoint disabled',
}

const actionText = (action: AuditAction): string => ACTIONS[action] ?? action

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? v.toLocaleString('en-US') : undefined
const number = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : undefined)

/** A plan as `pro (300 per minute, 10,000 per day)`, from an entry's `{ plan, perMinute, perDay }`. */
function planText(v: unknown): string | undefined {
  if (!isRecord(v) || typeof v.plan !== 'string') return undefined
  const minute = number(v.perMinute)
  const day = number(v.perDay)
  return minute && day ? `${v.plan} (${minute} per minute, ${day} per day)` : v.plan
}

/** A key as `"name" (prefix…)`, from its id: the account's keys give name and prefix. */
type KeyNames = Map<string, { name: string | null; prefix: string }>
function keyText(id: string | undefined, keys: KeyNames, fallback?: { name?: unknown; prefix?: unknown }): string {
  const known = id === undefined ? undefined : keys.get(id)
  const name = known?.name ?? text(fallback?.name)
  const prefix = known?.prefix ?? text(fallback?.prefix)
  const shown = [name ? `"${name}"` : 'Unnamed key', prefix ? `(${prefix}…)` : undefined].filter(Boolean).join(' ')
  return shown
}

/** What changed, in words (empty when the action says it all). */
function detailText(entry: AuditEvent, keys: KeyNames): string[] {
  const c = entry.changes ?? {}
  const before = isRecord(c.before) ? c.before : {}
  const after = isRecord(c.after) ? c.after : {}
  const keyId = entry.target?.kind === 'key' ? entry.target.id : undefined
  const lines: (string | undefined)[] = []
  switch (entry.action) {
    case 'account.created':
      lines.push(planText(after) && `Plan ${planText(after)}`)
      break
    case 'account.plan_changed':
    case 'plan_request.approved':
      lines.push(planText(before) && planText(after) && `From ${planText(before)} to ${planText(after)}`)
      break
    case 'account.email_changed':
      lines.push(text(before.email) && text(after.email) && `From ${text(before.email)} to ${text(after.email)}`)
      break
    case 'account.password_changed':
      lines.push(
        c.via === 'reset'
          ? 'With a reset link'
          : c.via === 'settings'
            ? 'On the account page'
            : c.via === 'sign_up'
              ? 'At sign-up'
              : undefined,
      )
      break
    case 'account.verified':
    case 'account.verification_resent':
    case 'account.invitation_sent':
      lines.push(text(c.email))
      break
    case 'account.suspended':
    case 'account.deleted':
      lines.push(text(c.reason) && `Reason: ${text(c.reason)}`)
      break
    case 'key.created':
      lines.push(keyText(keyId, keys, after), text(after.expiresAt) && `Expires ${when(text(after.expiresAt)!)}`)
      break
    case 'key.rolled': {
      const seconds = typeof c.graceSeconds === 'number' ? c.graceSeconds : undefined
      lines.push(`${keyText(keyId, keys)} replaced by ${keyText(text(c.newKeyId), keys, { prefix: c.prefix })}`)
      lines.push(
        seconds === 0
          ? 'The old key stopped at once'
          : text(c.graceEndsAt) && `The old key works until ${when(text(c.graceEndsAt)!)}`,
      )
      break
    }
    case 'key.revoked':
      lines.push(keyText(keyId, keys, c))
      break
    case 'key.expiry_changed': {
      // A missing or null instant is "never"; the entry's before/after are what setKeyExpiry wrote.
      const end = (v: unknown) => (text(v) ? when(text(v)!) : 'never')
      lines.push(keyText(keyId, keys, c), `Expiry from ${end(before.expiresAt)} to ${end(after.expiresAt)}`)
      break
    }
    case 'key.scopes_restricted': {
      const list = (v: unknown) => (Array.isArray(v) ? v.filter((s) => typeof s === 'string').join(', ') : '?')
      lines.push(keyText(keyId, keys, c), `Scopes from ${list(before.scopes)} to ${list(after.scopes)}`)
      break
    }
    case 'ban.lifted':
      lines.push(keyText(keyId, keys))
      break
    case 'plan_request.created':
      lines.push(
        text(c.plan) && `The ${text(c.plan)} plan${text(c.currentPlan) ? `, from ${text(c.currentPlan)}` : ''}`,
        text(c.note) && `Note: ${text(c.note)}`,
      )
      break
    case 'plan_request.declined':
      lines.push(text(c.plan) && `The ${text(c.plan)} plan`, text(c.reason) && `Reason: ${text(c.reason)}`)
      break
    case 'account.passkey_added':
    case 'account.passkey_removed':
    case 'account.passkey_clone_refused':
      lines.push(
        text(c.name) && `Passkey "${text(c.name)}"`,
        c.twoFactorOff === true ? 'Two-factor log-in is off' : undefined,
      )
      break
    case 'member.invited':
    case 'member.invitation_revoked':
    case 'member.joined':
    case 'member.removed':
    case 'member.left':
      lines.push(text(c.email), text(c.role) && `Role: ${text(c.role)}`)
      break
    case 'member.role_changed':
      lines.push(text(c.email), `From ${text(c.from) ?? '?'} to ${text(c.to) ?? '?'}`)
      break
    case 'account.two_factor_required':
      lines.push(c.required === true ? 'Required' : 'Not required')
      break
    case 'account.totp_removed':
      lines.push(c.twoFactorOff === true ? 'Two-factor log-in is off' : undefined)
      break
    case 'account.second_factor_locked':
      lines.push(text(c.until) && `Until ${when(text(c.until)!)}`)
      break
    case 'webhook_endpoint.created':
    case 'webhook_endpoint.updated':
    case 'webhook_endpoint.deleted':
    case 'webhook_endpoint.secret_rotated':
    case 'webhook_endpoint.disabled':
      lines.push(text(after.url ?? c.url), text(c.reason) && `Reason: ${text(c.reason)}`)
      break
  }
  return lines.filter((l): l is string => typeof l === 'string' && l !== '')
}

/** Who did it, as the integrator may see it: an operator is "Operator", nothing more. */
function actorCells(entry: AuditEvent, accountId: string): Html {
  const actor = entry.actor
  if (actor.kind === 'operator' || actor.kind === 'cli')
    return html`<td data-label="By">Operator</td><td data-label="From">—</td>`
  if (actor.kind === 'system') return html`<td data-label="By">Petstore (automatic)</td><td data-label="From">—</td>`
  if (actor.id !== accountId) return html`<td data-label="By">Another account</td><td data-label="From">—</td>`
  return html`<td data-label="By">${actor.email ?? 'You'}</td><td data-label="From">${actor.address ?? '—'}</td>`
}

/** Text over several lines, shown with its line breaks. */
const lines = (value: string): Html[] => value.split('\n').map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)

export function activityPage(input: {
  entries: AuditEvent[]
  accountId: string
  keys: KeyNames
  older?: string
  first: boolean
}): Html {
  if (input.entries.length === 0)
    return html`<p class="muted">${input.first ? 'Nothing recorded yet.' : 'No older entries.'} <a \
href="/portal/activity">Newest entries</a></p>`
  const rows = input.entries.map((e) => {
    const details = detailText(e, input.keys)
    return html`<tr><td class="when" data-label="When">${whenCell(e.at, '—')}</td><th scope="row" \
data-label="What">${actionText(e.action)}</th>
<td class="details" data-label="Details">${details.map((d, i) => html`${i > 0 ? html`<br>` : ''}${lines(d)}`)}</td>\
${actorCells(e, input.accountId)}</tr>`
  })
  const paging =
    input.first && !input.older
      ? ''
      : html`<p class="row-actions">${input.first ? '' : html`<a href="/portal/activity">Newest entries</a>`}\
${input.older ? html`<a href="/portal/activity?before=${input.older}">Older entries</a>` : ''}</p>`
  return html`<p class="muted">Every change to your account and its keys, by you or by an operator, newest first. \
Times are UTC.</p>
<table class="activity cards"><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Details</th>\
<th scope="col">By</th><th scope="col">From</th></tr></thead>
<tbody>${rows}</tbody></table>${paging}`
}
