// The roles of an account's members, each including the one before: a viewer reads; a developer manages keys and
// webhook endpoints; an admin manages members below owner and requests plans; an owner does everything, deleting
// the account and making other owners included.
import type { MemberRole } from '../../db/schema.js'

export type { MemberRole }

const ROLES: readonly MemberRole[] = ['viewer', 'developer', 'admin', 'owner']

export const isRole = (value: string): value is MemberRole => (ROLES as readonly string[]).includes(value)

/** Whether `role` includes `least`. */
export const roleAtLeast = (role: MemberRole, least: MemberRole): boolean => ROLES.indexOf(role) >= ROLES.indexOf(least)

/** The roles a member of `role` may give (invite with, change to): below owner for an admin, any for an owner. */
export const rolesGrantableBy = (role: MemberRole): MemberRole[] =>
  role === 'owner' ? [...ROLES] : role === 'admin' ? ['viewer', 'developer', 'admin'] : []
