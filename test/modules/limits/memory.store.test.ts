// The in-memory store (the default) keeps the RateLimitStore contract.
import { createMemoryStore } from '../../../src/modules/limits/memory.store.js'
import { runStoreContract } from './store-contract.js'

runStoreContract('memory', () => createMemoryStore())
