// What an integrator and an operator type for a plan request: the plan asked for, a note, and a reason for a
// refusal. Plain text, as every name and reason of the service (key-input.ts), except that a note or a reason may
// run over several lines (a textarea): line breaks are kept, every other control or invisible character refused.
import { plainTextProblem } from '../accounts/key-input.js'
import { isPlan, PLANS, type Plan } from '../accounts/plans.js'

export const NOTE_MAX = 1000
export const REASON_MAX = 500
/** Requests one account may have waiting at once (and one per plan): what one account can add to the queue. */
export const PENDING_PER_ACCOUNT = 3

/** A request or a decision that cannot be made; the message is fit to show to the person who tried. */
export class PlanRequestError extends Error {
  constructor(
    readonly kind: 'input' | 'not_found' | 'decided' | 'state',
    message: string,
  ) {
    super(message)
  }
}

/** The plans above `current`, lowest first (free < pro < business < enterprise). */
export function higherPlans(current: string): Plan[] {
  const rank = (PLANS as readonly string[]).indexOf(current)
  return PLANS.filter((_, i) => i > rank)
}

export const isHigherPlan = (plan: string, current: string): boolean =>
  (higherPlans(current) as string[]).includes(plan)

/** The plan asked for: one of the plans above `current`. */
export function checkRequestedPlan(plan: string, current: string): Plan {
  if (!isPlan(plan))
    throw new PlanRequestError('input', `There is no plan called "${plan}"; choose one of ${PLANS.join(', ')}.`)
  if (current === 'enterprise')
    throw new PlanRequestError('input', 'Your account is already on the enterprise plan, the highest there is.')
  if (!isHigherPlan(plan, current))
    throw new PlanRequestError(
      'input',
      `Your account is on the ${current} plan: ask for a higher one (${higherPlans(current).join(', ')}).`,
    )
  return plan
}

/** Text over one or more lines: CR LF made LF, trimmed, at most `max` characters, plain text on every line. */
function checkText(what: string, value: string, max: number): string {
  const text = value.replace(/\r\n?/g, '\n').trim()
  if ([...text].length > max)
    throw new PlanRequestError('input', `The ${what} has at most ${max} characters; this one has ${[...text].length}.`)
  for (const line of text.split('\n')) {
    const problem = plainTextProblem(line)
    if (problem) throw new PlanRequestError('input', `The ${what} ${problem}.`)
  }
  return text
}

/** The integrator's note (may be empty). */
export const checkNote = (note: string): string => checkText('note', note, NOTE_MAX)

/** Why an operator declines (required). */
export function checkDeclineReason(reason: string): string {
  const text = checkText('reason', reason, REASON_MAX)
  if (text === '') throw new PlanRequestError('input', 'Give a reason: it is mailed to the integrator.')
  return text
}

/** Enterprise figures an operator sets when approving: whole numbers above zero, at most as many a minute as a day. */
export function checkEnterpriseFigures(
  perMinute: number | undefined,
  perDay: number | undefined,
): { perMinute: number; perDay: number } {
  const ok = (n: number | undefined): n is number => n !== undefined && Number.isSafeInteger(n) && n > 0
  if (!ok(perMinute) || !ok(perDay))
    throw new PlanRequestError(
      'input',
      'The enterprise plan needs its quotas: a whole number of requests per minute and per day, each above zero.',
    )
  if (perMinute > perDay)
    throw new PlanRequestError('input', `${perMinute} requests per minute is more than the ${perDay} per day.`)
  return { perMinute, perDay }
}
