import { toInt64, type Int64Input } from '../json.js'
import { everyItem, getPage, urlOf, type Page } from '../paging.js'
import type { ApiPromise } from '../api-promise.js'
import { call, type RequestOptions, type TransportSettings } from '../transport.js'
import type { ListPetsPageParams, ListPetsParams, NewPet, Pet } from '../types.js'

/** `ps.pets`: the pet operations of `/v1/pets`. */
export class Pets {
  constructor(
    private readonly settings: TransportSettings,
    private readonly baseUrl: string,
  ) {}

  /**
   * `POST /pets`: adds a pet. Sent with an Idempotency-Key (yours, or a fresh UUID), so a retry never adds it twice.
   */
  create(pet: NewPet, options?: RequestOptions): ApiPromise<Pet> {
    const body = () => ({ name: pet.name, categoryId: toInt64(pet.categoryId, 'categoryId'), status: pet.status })
    return call(
      this.settings,
      () => ({ method: 'POST', url: `${this.baseUrl}/pets`, body: body(), options }),
      (answer) => answer.data as Pet,
    )
  }

  /** Every pet matching `params`, page after page (following each page's `Link: rel="next"`), as it is read. */
  list(params: ListPetsParams = {}, options?: RequestOptions): AsyncGenerator<Pet, void, undefined> {
    return everyItem((cursor) => this.listPage({ ...params, cursor }, options))
  }

  /** `GET /pets`: one page of pets, ordered by id, and the cursor of the next page (if any). */
  listPage(params: ListPetsPageParams = {}, options?: RequestOptions): ApiPromise<Page<Pet>> {
    const url = urlOf(this.baseUrl, '/pets', { limit: params.limit, status: params.status, cursor: params.cursor })
    return getPage<Pet>(this.settings, url, options)
  }

  /**
   * `GET /pets/{petId}`: one pet by id.
   * @deprecated The service deprecated this operation on 2026-11-21 and removes it on 2030-12-05
   * (`Sunset: Thu, 05 Dec 2030 00:00:00 GMT`); from then on it answers 410 (a PetstoreError with code
   * `operation_sunset`). Use {@link Pets.list} or {@link Pets.listPage} instead.
   */
  get(id: Int64Input, options?: RequestOptions): ApiPromise<Pet> {
    return call(
      this.settings,
      () => ({ method: 'GET', url: `${this.baseUrl}/pets/${toInt64(id, 'id')}`, options }),
      (answer) => answer.data as Pet,
    )
  }
}
