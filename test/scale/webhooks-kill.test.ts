// At least once across a crash (issue 36), with real `serve` processes on the pass's backend: an event committed with
// its pet by an instance that is then killed (kill -9) before delivering it is delivered by the next instance. The
// first instance may not reach loopback (an allow-list without it), so its attempt is refused and logged: the
// delivery the receiver gets can only be the second instance's, made from its delivery thread.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { backend, postgresSchema } from '../helpers/backend.js'
import { tempDir } from '../helpers/cli.js'
import { bearer } from '../helpers/harness.js'
import { startReceiver } from '../helpers/webhook-receiver.js'
import { pollUntil } from '../helpers/within.js'
import { accountKey, ROOMY, startInstance } from './support.js'

const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

test('an event whose instance was killed before delivering it is delivered by the next instance', async (t) => {
  const receiver = await startReceiver(t)
  const databaseUrl = backend === 'postgres' ? await postgresSchema(t) : tempDir(t, 'petstore-webhooks-kill-').file
  const env = { DATABASE_URL: databaseUrl, WEBHOOK_RETRY_SCHEDULE: '1s' }
  const { key } = await accountKey(databaseUrl, ROOMY)

  // The endpoint, made where loopback may be reached (outside production, without an allow-list).
  let instance = await startInstance(t, env)
  const made = await fetch(`${instance.origin}/v1/webhook-endpoints`, {
    method: 'POST',
    headers: json(key),
    body: JSON.stringify({ url: receiver.url, eventTypes: ['pet.created'] }),
  })
  assert.equal(made.status, 201)
  const endpoint = (await made.json()) as { id: string; secret: string }
  await instance.process.stop()

  instance = await startInstance(t, { ...env, WEBHOOK_ALLOWED_NETWORKS: '192.0.2.0/24' })
  const pet = await fetch(`${instance.origin}/v1/pets`, {
    method: 'POST',
    headers: json(key),
    body: '{"name":"Survivor","categoryId":1}',
  })
  assert.equal(pet.status, 201)
  const petId = ((await pet.json()) as { id: number }).id
  const origin = instance.origin
  await pollUntil('its attempt refused', async () => {
    const log = await fetch(`${origin}/v1/webhook-endpoints/${endpoint.id}/attempts`, { headers: bearer(key) })
    const attempts = (await log.json()) as { errorClass?: string }[]
    return attempts.some((a) => a.errorClass === 'blocked_address') ? true : undefined
  })
  process.kill(instance.process.pid, 'SIGKILL')
  await instance.process.exited
  assert.equal(receiver.received.length, 0)

  // At info, so that its log shows the delivery was made from the delivery thread (src/main/webhook-sender.ts).
  instance = await startInstance(t, { ...env, LOG_LEVEL: 'info' })
  await pollUntil('the event delivered by the next instance', async () =>
    receiver.received.length > 0 ? true : undefined,
  )
  const [delivery] = receiver.received
  const event = new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
    type: string
    data: { id: number; name: string }
  }
  assert.deepEqual([event.type, event.data.id, event.data.name], ['pet.created', petId, 'Survivor'])
  await instance.process.waitFor(/webhook delivery thread started/)
  assert.doesNotMatch(instance.process.stdout(), /delivery thread (failed|stopped)/)
  // Stopped here, not left to the clean-up: its hook runs after the schema's drop (registered first), which would
  // then wait on a live server's connections.
  await instance.process.stop()
})
