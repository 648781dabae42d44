// What a site's sessions are kept in (the portal's portal_sessions, the console's operator_sessions): the
// contract each module's store fulfils and the site kit's sessions (sites/kit/sessions.ts) work on.
export interface StoredSession {
  userId: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

/** Where a site keeps its sessions (ids are passed in clear; the store keeps their hashes). */
export interface SessionStore<User> {
  findSession(id: string): Promise<StoredSession | undefined>
  /** The session's user, or undefined when it may no longer be signed in (then the session ends). */
  findUser(userId: string): Promise<User | undefined>
  createSession(
    userId: string,
    maxAgeMs: number,
    client: { userAgent: string | null; address: string | null },
  ): Promise<string>
  touchSession(id: string): Promise<void>
  deleteSession(id: string): Promise<void>
  deleteSessionsOf(userId: string, keepId?: string): Promise<void>
  purgeSessions(idleMs: number): Promise<void>
}
