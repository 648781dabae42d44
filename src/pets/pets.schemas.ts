// Pet schemas (spec 2.1–2.4): the one source of validation, serialization, TypeScript types and OpenAPI.
import { Type, type Static } from 'typebox'

export const PET_STATUSES = ['available', 'pending', 'sold'] as const
export type PetStatus = (typeof PET_STATUSES)[number]

const Int64Id = (description: string) => Type.Unsafe<bigint>({ type: 'integer', format: 'int64', minimum: 1, description })

export const PetStatusSchema = Type.Unsafe<PetStatus>({
  $id: 'PetStatus',
  title: 'PetStatus',
  type: 'string',
  enum: [...PET_STATUSES],
  description: 'Availability of the animal.',
})
const status = () => Type.Unsafe<PetStatus>({ $ref: 'PetStatus' })

export const NAME_MAX_LENGTH = 100

export const NewPetSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: NAME_MAX_LENGTH,
      pattern: '\\S',
      description: "The animal's name: 1 to 100 characters, not only white space",
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
  { $id: 'Pet', title: 'Pet', additionalProperties: false, description: '`status` is absent when the pet was created without one.' },
)

export const PetsSchema = Type.Array(Type.Unsafe<Static<typeof PetSchema>>({ $ref: 'Pet' }), {
  $id: 'Pets',
  title: 'Pets',
  description: 'A bare array of pets, ordered by id ascending.',
})

export const ListPetsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum number of animals to return.' })),
    status: Type.Optional(status()),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Opaque position from the `Link: rel="next"` header of the previous page. Keep `status` the same while paging.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const PetIdParams = Type.Object({ petId: Int64Id('The identifier of the animal.') }, { additionalProperties: false })

export type NewPet = Static<typeof NewPetSchema>
export type Pet = Static<typeof PetSchema>
export type ListPetsQuery = Static<typeof ListPetsQuery>
