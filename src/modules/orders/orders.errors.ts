// What placing an order refuses although the body was well formed: a ship date outside the years 0000 to 9999
// once in UTC, or a pet that is not one of the account's (the same refusal whether it does not exist or is
// another account's). The API answers them 400 invalid_body (api/contract/domain-errors.ts).
export class OrderRefused extends Error {
  constructor(
    readonly field: 'shipDate' | 'petId',
    readonly value: string,
  ) {
    super(`order refused: ${field} ${value}`)
  }
}
