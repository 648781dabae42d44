// Instants as people read them on the portal's and the console's pages: to the minute, in UTC.
import { html, type Html } from './html.js'

/** An instant as text, to the minute, in UTC; `none` when there is none. */
export const when = (iso: string | null, none = '—'): string =>
  iso === null ? none : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`

/** An instant in a table cell: the day and the time each kept whole, so a narrow column breaks between them. */
export const whenCell = (iso: string | null, none: string): Html | string =>
  iso === null
    ? none
    : html`<span class="day">${iso.slice(0, 10)}</span> <span class="time">${iso.slice(11, 16)} UTC</span>`
