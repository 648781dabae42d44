// What is added to a request's log line (api/platform/request-log.ts writes one per request) by those who know it:
// the API's error handler the `errorCode` of an Error answer (without the line parsing the body), the console its
// operator's id, the portal its user's (so one person's requests can be searched for). Codes and ids only, never an
// address or a name. Kept beside the request until its line is written.
const fields = new WeakMap<object, Record<string, string>>()

export function addLogFields(request: object, more: Record<string, string>): void {
  fields.set(request, { ...fields.get(request), ...more })
}

export function logFieldsOf(request: object): Record<string, string> {
  return fields.get(request) ?? {}
}
