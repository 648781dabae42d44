import { toInt64, type Int64Input } from '../json.js'
import { everyItem, getPage, urlOf, type Page } from '../paging.js'
import type { ApiPromise } from '../api-promise.js'
import { call, type RequestOptions, type TransportSettings } from '../transport.js'
import type { ListOrdersPageParams, ListOrdersParams, NewOrder, Order } from '../types.js'

/**
 * `ps.orders`: the store orders of `/v1/store/orders`. The service marks them experimental: they may change or
 * disappear without the deprecation period the pet operations get.
 */
export class Orders {
  constructor(
    private readonly settings: TransportSettings,
    private readonly baseUrl: string,
  ) {}

  /** `POST /store/orders`: places an order for a pet of your account; sent with an Idempotency-Key. */
  place(order: NewOrder, options?: RequestOptions): ApiPromise<Order> {
    const body = () => ({
      petId: toInt64(order.petId, 'petId'),
      quantity: order.quantity,
      shipDate: order.shipDate instanceof Date ? order.shipDate.toISOString() : order.shipDate,
      status: order.status,
      complete: order.complete,
    })
    return call(
      this.settings,
      () => ({ method: 'POST', url: `${this.baseUrl}/store/orders`, body: body(), options }),
      (answer) => answer.data as Order,
    )
  }

  /** Every order matching `params`, page after page, as it is read. */
  list(params: ListOrdersParams = {}, options?: RequestOptions): AsyncGenerator<Order, void, undefined> {
    return everyItem((cursor) => this.listPage({ ...params, cursor }, options))
  }

  /** `GET /store/orders`: one page of orders, ordered by id, and the cursor of the next page (if any). */
  listPage(params: ListOrdersPageParams = {}, options?: RequestOptions): ApiPromise<Page<Order>> {
    const url = urlOf(this.baseUrl, '/store/orders', {
      limit: params.limit,
      status: params.status,
      cursor: params.cursor,
    })
    return getPage<Order>(this.settings, url, options)
  }

  /** `GET /store/orders/{orderId}`: one order (a cancelled one is a NotFoundError). */
  get(id: Int64Input, options?: RequestOptions): ApiPromise<Order> {
    return call(
      this.settings,
      () => ({ method: 'GET', url: `${this.baseUrl}/store/orders/${toInt64(id, 'id')}`, options }),
      (answer) => answer.data as Order,
    )
  }

  /**
   * `DELETE /store/orders/{orderId}`: cancels an order; NotFoundError if there is no live order with that id.
   * Retried like every call: when an attempt got no answer (or a 5xx) and the retry finds no order, the earlier
   * attempt is taken to have cancelled it, and the call succeeds.
   */
  cancel(id: Int64Input, options?: RequestOptions): ApiPromise<void> {
    return call(
      this.settings,
      () => ({
        method: 'DELETE',
        url: `${this.baseUrl}/store/orders/${toInt64(id, 'id')}`,
        options,
        goneMeansDone: true,
      }),
      () => undefined,
    )
  }
}
