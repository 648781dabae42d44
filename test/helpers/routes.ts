// The app's route table as Fastify's router holds it (printRoutes), so that a test covering "every route" also
// covers a route added later.
import type { FastifyInstance } from 'fastify'

/** Every path with a route for `method` whose path starts with `prefix`, parameters as in the route (`:id`). */
export function routesWith(app: FastifyInstance, method: string, prefix: string): string[] {
  const paths: string[] = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([^)]*)\))?$/.exec(line)
    if (!node) continue
    const depth = node[1]!.length / 4
    stack[depth] = (stack[depth - 1] ?? '') + node[2]!
    if (new RegExp(`\\b${method}\\b`).test(node[3] ?? '')) paths.push(stack[depth]!)
  }
  return paths.filter((p) => p.startsWith(prefix))
}
