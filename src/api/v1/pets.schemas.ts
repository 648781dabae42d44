// Pet schemas (spec 2.1–2.4): the one source of validation, serialization, TypeScript types and OpenAPI.
import { Type, type Static } from 'typebox'
import { int64, requestText } from '../contract/schemas.js'
import { listQuery } from '../contract/paging.js'
import type { Same } from '../contract/same-type.js'
import { PET_NAME_MAX, PET_STATUSES, type NewPet, type Pet, type PetStatus } from '../../modules/pets/pet.js'

export type { PetStatus }

const Int64Id = (description: string) => int64(description, { minimum: 1 })

export const PetStatusSchema = Type.Unsafe<PetStatus>({
  $id: 'PetStatus',
  title: 'PetStatus',
  type: 'string',
  enum: [...PET_STATUSES],
  description: 'Availability of the animal.',
})
const status = () => Type.Unsafe<PetStatus>({ $ref: 'PetStatus' })

export const NewPetSchema = Type.Object(
  {
    name: requestText("The animal's name: 1 to 100 characters, not only white space.", {
      minLength: 1,
      maxLength: PET_NAME_MAX,
      notBlank: true,
    }),
    categoryId: Int64Id('Identifier of the category the animal belongs to (1 to 9223372036854775807).'),
    status: Type.Optional(status()),
  },
  { $id: 'NewPet', title: 'NewPet', additionalProperties: false },
)

export const PetSchema = Type.Object(
  {
    id: Int64Id('Unique identifier assigned on creation.'),
    name: Type.String({ description: "The animal's name." }),
    categoryId: Int64Id('Identifier of the category the animal belongs to.'),
    status: Type.Optional(status()),
  },
  {
    $id: 'Pet',
    title: 'Pet',
    additionalProperties: false,
    description: '`status` is absent when the pet was created without one.',
  },
)

export const PetsSchema = Type.Array(Type.Unsafe<Static<typeof PetSchema>>({ $ref: 'Pet' }), {
  $id: 'Pets',
  title: 'Pets',
  description: 'A bare array of pets, ordered by id ascending.',
})

export const ListPetsQuery = listQuery({ status: status(), items: 'animals' })

// Any int64 (the spec's type): an id that names no pet of the account, 0 and negative ones included, is a 404.
export const PetIdParams = Type.Object(
  {
    petId: Type.Unsafe<bigint>({
      type: 'integer',
      format: 'int64',
      description: 'The identifier of the animal (an int64; ids are assigned from 1).',
    }),
  },
  { additionalProperties: false },
)

// The schemas describe exactly the module's types (a mismatch does not compile).
const schemasMatchTypes: [Same<Static<typeof NewPetSchema>, NewPet>, Same<Static<typeof PetSchema>, Pet>] = [true, true]
void schemasMatchTypes
export type ListPetsQuery = Static<typeof ListPetsQuery>

/** Examples for the OpenAPI document; int64 values as bigint, so that they are written exactly. */
export const PET_EXAMPLES: Record<string, unknown> = {
  NewPet: { name: 'Rex', categoryId: 9223372036854775807n, status: 'available' },
  Pet: { id: 1n, name: 'Rex', categoryId: 9223372036854775807n, status: 'available' },
  Pets: [
    { id: 1n, name: 'Rex', categoryId: 9223372036854775807n, status: 'available' },
    { id: 2n, name: 'Tom', categoryId: 1n },
  ],
}
