// GET /console: the overview (overview.repository.ts reads the figures, overview.pages.ts shows them). Any
// signed-in operator may read it (the plugin sends others to log in).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { pageQuery, pageResponses } from '../kit/page-schemas.js'
import { sendPage } from '../kit/reply.js'
import type { OperatorConsole } from './console.context.js'
import { consolePage } from './layout.js'
import { overviewContent } from './overview.pages.js'
import { createOverviewRepository } from './overview.repository.js'

export async function overviewRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const overview = createOverviewRepository({ db: c.db })
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get(
    '/',
    { schema: { hide: true, querystring: pageQuery({}), response: pageResponses({ 200: 'The overview' }) } },
    async (request, reply) => {
      c.require(request, 'support')
      // This instance's latest requests count at once (as the portal's usage page); other instances' within a flush.
      await c.usage.flush()
      const figures = await overview.read(c.clock.now())
      return sendPage(reply, 200, consolePage(c.context(request, reply), 'Overview', overviewContent(figures)))
    },
  )
}
