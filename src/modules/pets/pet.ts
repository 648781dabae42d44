// A pet as the service keeps it and answers it (spec 2.1). The API's schemas (api/v1/pets.schemas.ts) describe the
// same shapes to clients and are checked against these types when the code compiles.
export const PET_STATUSES = ['available', 'pending', 'sold'] as const
export type PetStatus = (typeof PET_STATUSES)[number]

/** The longest name a pet may have. */
export const PET_NAME_MAX = 100

export interface NewPet {
  name: string
  categoryId: bigint
  status?: PetStatus
}

export interface Pet extends NewPet {
  id: bigint
}
