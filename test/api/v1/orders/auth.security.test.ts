// The authentication checks every operation must pass (test/helpers/auth-checks.ts), for the four store operations.
import { registerAuthChecks } from '../../../helpers/auth-checks.js'
import { ORDER_OPERATIONS } from '../../../helpers/orders.js'

for (const operation of ORDER_OPERATIONS) registerAuthChecks(operation)
registerAuthChecks(ORDER_OPERATIONS[1]!, { listen: true })
