// `petstore operators …`: the people who run the console. `create` prints a single-use setup link (24 hours, from
// PETSTORE_PUBLIC_URL); the operator sets a password and an authenticator there. Every change is in the audit log
// with the operating-system user as its actor.
import { Command, InvalidArgumentError, Option } from 'commander'
import { systemClock } from '../kernel/clock.js'
import {
  isOperatorRole,
  OPERATOR_ROLES,
  OperatorError,
  type Operator,
  type OperatorRole,
} from '../modules/operators/operator.js'
import {
  createOperatorsRepository,
  SETUP_LINK_TTL_MS,
  type OperatorsRepository,
} from '../modules/operators/operators.repository.js'
import { cliActor } from './actor.js'
import { output, RunError, UsageError, withDatabase, type CommandContext } from './run.js'

function describe(o: Operator): string {
  const state = o.disabledAt ? `disabled ${o.disabledAt}` : o.setUp ? 'active' : 'setup pending'
  return `${o.id}  ${o.email}  ${o.role}  ${state}  created ${o.createdAt}`
}

function role(raw: string): OperatorRole {
  if (!isOperatorRole(raw)) throw new InvalidArgumentError(`It must be one of ${OPERATOR_ROLES.join(', ')}.`)
  return raw
}

/** Runs `fn` with the operators repository; a refused change is one line (a bad email: a usage error). */
function withOperators(
  fn: (operators: OperatorsRepository, ctx: CommandContext) => Promise<void>,
  options: { create?: boolean } = {},
): Promise<void> {
  return withDatabase(async (ctx) => {
    try {
      await fn(createOperatorsRepository({ db: ctx.handle.db, clock: systemClock }), ctx)
    } catch (error) {
      if (error instanceof OperatorError)
        throw error.code === 'invalid_email' ? new UsageError(error.message) : new RunError(error.message)
      throw error
    }
  }, options)
}

export function operatorsCommand(): Command {
  const operators = new Command('operators').description(
    'create, list, disable operators of the console and set their roles',
  )

  operators
    .command('create')
    .description('create an operator and print its single-use setup link (valid 24 hours)')
    .requiredOption('--email <email>', "the operator's email address")
    .addOption(
      new Option('--role <role>', 'what the operator may do').choices([...OPERATOR_ROLES]).makeOptionMandatory(),
    )
    .option('--json', 'print one JSON object')
    .action((opts: { email: string; role: OperatorRole; json?: boolean }) =>
      withOperators(
        async (repo, { config }) => {
          const { operator, setupToken } = await repo.create({ email: opts.email, role: opts.role, actor: cliActor() })
          const setupLink = `${config.consolePublicUrl}/console/setup/${setupToken}`
          const expiresAt = new Date(Date.parse(operator.createdAt) + SETUP_LINK_TTL_MS).toISOString()
          output(!!opts.json, { ...operator, setupLink, setupLinkExpiresAt: expiresAt }, () =>
            [
              `created operator ${describe(operator)}`,
              `setup link (single use, until ${expiresAt}): ${setupLink}`,
              ...(config.console
                ? []
                : ['note: the console is off here (CONSOLE=off, or CONSOLE unset and the portal off)']),
            ].join('\n'),
          )
          // The first operator of a new installation may come before anything else: it may start the database.
        },
        { create: true },
      ),
    )

  operators
    .command('list')
    .description('list operators')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      withOperators(async (repo) => {
        const list = await repo.list()
        output(!!opts.json, { operators: list }, () =>
          list.length === 0 ? 'no operators' : list.map(describe).join('\n'),
        )
      }),
    )

  operators
    .command('disable')
    .description('disable an operator: it can no longer log in, and its sessions end now')
    .argument('<id>')
    .option('--json', 'print one JSON object')
    .action((id: string, opts: { json?: boolean }) =>
      withOperators(async (repo) => {
        const operator = await repo.disable(id, cliActor())
        output(!!opts.json, operator, () => `disabled operator ${describe(operator)}`)
      }),
    )

  operators
    .command('set-role')
    .description(`change an operator's role (${OPERATOR_ROLES.join(' or ')})`)
    .argument('<id>')
    .argument('<role>', OPERATOR_ROLES.join(' or '), role)
    .option('--json', 'print one JSON object')
    .action((id: string, newRole: OperatorRole, opts: { json?: boolean }) =>
      withOperators(async (repo) => {
        const operator = await repo.setRole(id, newRole, cliActor())
        output(!!opts.json, operator, () => `updated operator ${describe(operator)}`)
      }),
    )

  return operators
}
