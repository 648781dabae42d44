// The public types: the generated ones (sdk/src/generated/, from the service's own OpenAPI documents), with the
// int64 fields as bigint in results and as Int64Input in arguments.
import type { Int64Field, Int64Input } from './json.js'
import type { components as MessagesComponents } from './generated/messages.js'
import type { components, operations } from './generated/petstore.js'

type Schemas = components['schemas']
/** A result: int64 fields are bigint. */
type Exact<T> = { [K in keyof T]: K extends Int64Field ? bigint : T[K] }
/** An argument: int64 fields take a bigint, a safe-integer number or a decimal string. */
type Loose<T> = Lenient<{ [K in keyof T]: K extends Int64Field ? Int64Input : T[K] }>
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]
/** Optional properties also take `undefined`, so callers compiled with `exactOptionalPropertyTypes` can pass one. */
type Lenient<T> = { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] | undefined }

export type { Int64Input }
export type PetStatus = Schemas['PetStatus']
export type Pet = Exact<Schemas['Pet']>
export type NewPet = Loose<Schemas['NewPet']>
export type ListPetsPageParams = Lenient<NonNullable<operations['listPets']['parameters']['query']>>
export type ListPetsParams = Omit<ListPetsPageParams, 'cursor'>

export type Message = MessagesComponents['schemas']['Message']

export type OrderStatus = Schemas['OrderStatus']
export type Order = Exact<Schemas['Order']>
/** `shipDate` also takes a Date (sent as its ISO string). */
export type NewOrder = Omit<Loose<Schemas['NewOrder']>, 'shipDate'> & { shipDate?: string | Date | undefined }
export type ListOrdersPageParams = Lenient<NonNullable<operations['listOrders']['parameters']['query']>>
export type ListOrdersParams = Omit<ListOrdersPageParams, 'cursor'>
