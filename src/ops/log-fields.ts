// What a surface adds to its request's log line (api/platform/request-log.ts writes one per request): the console
// its operator's id, the portal its user's, so that an operator's or an integrator's requests can be searched for.
// Ids only, never an address or a name. Kept beside the request until its line is written.
const fields = new WeakMap<object, Record<string, string>>()

export function addLogFields(request: object, more: Record<string, string>): void {
  fields.set(request, { ...fields.get(request), ...more })
}

export function logFieldsOf(request: object): Record<string, string> {
  return fields.get(request) ?? {}
}
