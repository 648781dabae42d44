// The Change plan form read into what accounts.setPlan takes, or what is wrong in words. The enterprise plan needs
// both quotas; the other plans have their published ones, so the quota fields are ignored for them.
import { isPlan, PLANS, type Plan } from '../../modules/accounts/plans.js'

const positive = (raw: string): number | undefined =>
  /^\d+$/.test(raw) && Number(raw) >= 1 && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined

export function parsePlan(
  plan: string | undefined,
  perMinute: string | undefined,
  perDay: string | undefined,
): { plan: Plan; perMinute?: number; perDay?: number } | { problem: string } {
  const name = (plan ?? '').trim()
  if (!isPlan(name)) return { problem: `Choose a plan: ${PLANS.join(', ')}.` }
  if (name !== 'enterprise') return { plan: name }
  const minute = positive((perMinute ?? '').trim())
  const day = positive((perDay ?? '').trim())
  if (minute === undefined || day === undefined) {
    return {
      problem:
        'The enterprise plan needs its own quotas: requests per minute and requests per day, each a whole ' +
        'number from 1.',
    }
  }
  if (minute > day) return { problem: 'Requests per minute cannot be more than requests per day.' }
  return { plan: name, perMinute: minute, perDay: day }
}
