// Every pet store operation refuses missing, malformed, unknown, revoked and other-environment keys the same way.
import { OPERATIONS, registerAuthChecks } from '../helpers/auth-checks.js'

for (const operation of OPERATIONS) registerAuthChecks(operation)
