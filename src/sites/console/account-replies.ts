// How the account actions answer: a confirmation page (200, or 400 with what was wrong), or 303 back to the account
// page with the notice of what was done (named by its key: nothing of the request is echoed).
import type { FastifyReply } from 'fastify'
import type { Account } from '../../modules/accounts/accounts.repository.js'
import type { Html } from '../kit/html.js'
import { redirect, sendPage } from '../kit/reply.js'
import type { Done } from './account.pages.js'
import { consolePage, type ConsolePageContext } from './layout.js'

export const backToAccount = (reply: FastifyReply, account: Pick<Account, 'id'>, done: Done) =>
  redirect(reply, `/console/accounts/${encodeURIComponent(account.id)}?done=${done}`)

export const confirmPage = (
  reply: FastifyReply,
  ctx: ConsolePageContext,
  title: string,
  status: number,
  content: Html,
) => sendPage(reply, status, consolePage(ctx, title, content))
