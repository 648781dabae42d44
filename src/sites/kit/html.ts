// A tiny HTML template helper: every interpolated value is escaped unless it is already Html (made by `html`).
// Arrays are joined; null, undefined and false render nothing.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

function render(value: unknown): string {
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0]!
  values.forEach((value, i) => (text += render(value) + strings[i + 1]!))
  return new Html(text)
}
