// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react'
import { createElement } from 'react'
import { afterEach, describe, expect, test } from 'vitest'
import {
  createPolderClient,
  OrderBook,
  type OrderBookSnapshot,
  type PolderClient,
} from '../src/index.ts'
import {
  PolderClientProvider,
  useBestBid,
  useConnectionStatus,
  useFees,
  useSocketConnection,
} from '../src/react/index.ts'

// Spec part 14: React bindings on useSyncExternalStore with selectors.

afterEach(cleanup)

function snapshot(market: string, nonce: number, bestBid: string): OrderBookSnapshot {
  const book = new OrderBook(market)
  book.loadSnapshot({ nonce, bids: [[bestBid, '1']], asks: [['999', '1']] })
  return book.snapshot()
}

function publish(client: PolderClient, market: string, nonce: number, bestBid: string): void {
  act(() => {
    client.stores.orderBooks.setState({
      books: {
        ...client.stores.orderBooks.getState().books,
        [market]: { status: 'received', data: snapshot(market, nonce, bestBid) },
      },
    })
  })
}

function testClient(): PolderClient {
  return createPolderClient({ url: 'ws://127.0.0.1:1/v2', reconnect: false })
}

describe('React bindings', () => {
  test('a component watching one market best bid does not re-render on another market update', () => {
    const client = testClient()
    let renders = 0
    function BestBid(props: { market: string }) {
      renders += 1
      const bid = useBestBid(props.market)
      return createElement('span', { 'data-testid': 'bid' }, bid ?? '—')
    }
    const view = render(
      createElement(
        PolderClientProvider,
        { client },
        createElement(BestBid, { market: 'BTC-EUR' }),
      ),
    )
    expect(view.getByTestId('bid').textContent).toBe('—')
    publish(client, 'BTC-EUR', 1, '30000')
    expect(view.getByTestId('bid').textContent).toBe('30000')
    const rendersAfterBtc = renders
    publish(client, 'ETH-EUR', 1, '2000')
    publish(client, 'ETH-EUR', 2, '2001')
    publish(client, 'BTC-EUR', 2, '30000') // same best bid, new book object
    expect(renders).toBe(rendersAfterBtc)
    publish(client, 'BTC-EUR', 3, '30001')
    expect(view.getByTestId('bid').textContent).toBe('30001')
    expect(renders).toBe(rendersAfterBtc + 1)
  })

  test('hooks read the socket, connection status and fees stores through the provider', () => {
    const client = testClient()
    function Status() {
      const socket = useSocketConnection()
      const status = useConnectionStatus()
      const maker = useFees((state) => state.fees.maker)
      return createElement('p', { 'data-testid': 'status' }, `${socket} ${status} ${maker}`)
    }
    const view = render(createElement(PolderClientProvider, { client }, createElement(Status)))
    expect(view.getByTestId('status').textContent).toBe('notInitialised Initialised 0.15')
    act(() =>
      client.stores.fees
        .getState()
        .receive({ fees: { maker: '0.001', taker: '0.002', volume: '0' } }),
    )
    expect(view.getByTestId('status').textContent).toBe('notInitialised Initialised 0.1')
  })

  test('a hook outside the provider throws a clear error', () => {
    function Orphan() {
      useBestBid('BTC-EUR')
      return null
    }
    const original = console.error
    console.error = () => {}
    try {
      expect(() => render(createElement(Orphan))).toThrow(/PolderClientProvider/)
    } finally {
      console.error = original
    }
  })
})
