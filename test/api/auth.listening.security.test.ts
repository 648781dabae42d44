// The same authentication checks on a real listening server through `fetch`: real sockets, real header parsing.
import { OPERATIONS, registerAuthChecks } from '../helpers/auth-checks.js'

for (const operation of OPERATIONS) registerAuthChecks(operation, { listen: true })
