// Plans and their quotas (spec section 8.2). Enterprise quotas are agreed per account and stored on it.

export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

export interface Quota {
  perMinute: number
  perDay: number
}

export const PLAN_QUOTAS: Record<Exclude<Plan, 'enterprise'>, Quota> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
}

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value)
}

/**
 * Checks a plan with its optional custom figures: enterprise needs both, the others take none
 * (their quotas are the published ones). Returns the figures to store, or throws with a reason.
 */
export function planFigures(
  plan: string,
  perMinute?: number,
  perDay?: number,
): { plan: Plan; perMinute: number | null; perDay: number | null } {
  if (!isPlan(plan)) throw new Error(`unknown plan "${plan}"; use one of ${PLANS.join(', ')}`)
  if (plan === 'enterprise') {
    if (perMinute === undefined || perDay === undefined)
      throw new Error('the enterprise plan needs both --per-minute and --per-day')
    return { plan, perMinute, perDay }
  }
  if (perMinute !== undefined || perDay !== undefined)
    throw new Error(
      `custom quotas are only for the ` +
        `enterprise plan; ${plan} has ${PLAN_QUOTAS[plan].perMinute}/min and ${PLAN_QUOTAS[plan].perDay}/day`,
    )
  return { plan, perMinute: null, perDay: null }
}

/** The quota in force for an account: the plan's, or the account's own figures on enterprise. */
export function quotaOf(account: { plan: string; perMinute: number | null; perDay: number | null }): Quota {
  const plan = account.plan
  if (plan === 'free' || plan === 'pro' || plan === 'business') return PLAN_QUOTAS[plan]
  // enterprise (the CLI refuses it without both figures); an unknown plan gets no quota at all
  return { perMinute: account.perMinute ?? 0, perDay: account.perDay ?? 0 }
}
