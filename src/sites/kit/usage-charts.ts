// The two usage charts of an account (or one of its keys): the last hour per minute and the last 30 days per day,
// by outcome. The portal's usage page and the console's account page show the same ones.
import type { UsagePoint } from '../../modules/usage/usage.service.js'
import { barChart } from './charts.js'
import { html, type Html } from './html.js'

/** `subject`: whose requests, as the captions name them ("all keys", "key production"). */
export function usageCharts(input: { perMinute: UsagePoint[]; perDay: UsagePoint[]; subject: string }): Html {
  return html`${barChart({
    id: 'minute',
    name: 'Requests per minute',
    caption: `Requests per minute, last hour, ${input.subject}`,
    points: input.perMinute,
    label: (at) => at.slice(11, 16),
  })}
${barChart({
  id: 'day',
  name: 'Requests per day',
  caption: `Requests per day, last 30 days, ${input.subject}`,
  points: input.perDay,
  label: (at) => at.slice(5, 10),
})}`
}
