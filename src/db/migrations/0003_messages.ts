import type { Kysely, Migration } from 'kysely'
import { serialId } from './columns.js'

// The message queue: accepted messages, oldest first by `seq`, with their delivery state.
export const messages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('messages')
      .addColumn('seq', ...serialId(db))
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // Epoch milliseconds: the worker compares them with its clock.
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      .execute()
    await db.schema.createIndex('messages_due').on('messages').columns(['status', 'next_attempt_at', 'seq']).execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('messages').execute()
  },
}
