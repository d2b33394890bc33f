// The published SDK ships no types; this covers what the compatibility test calls.
declare module 'bitvavo' {
  type Json = Record<string, unknown> & { [key: string]: unknown }
  type Client = {
    options(options: Record<string, unknown>): Client
    time(): Promise<{ time: number }>
    markets(options?: Record<string, unknown>): Promise<Json[]>
    assets(options?: Record<string, unknown>): Promise<Json[]>
    book(market: string, options?: Record<string, unknown>): Promise<Json>
    placeOrder(
      market: string,
      side: string,
      orderType: string,
      body: Record<string, unknown>,
    ): Promise<Json>
    getOrder(market: string, orderId: string): Promise<Json>
    cancelOrder(market: string, orderId: string): Promise<Json>
    ordersOpen(options?: Record<string, unknown>): Promise<Json[]>
    trades(market: string, options?: Record<string, unknown>): Promise<Json[]>
    balance(options?: Record<string, unknown>): Promise<Json[]>
    account(): Promise<Json>
    getEmitter(): { on(event: string, listener: (payload: unknown) => void): void }
    websocket: {
      subscriptionBook(
        market: string,
        callback: (book: { bids: string[][]; asks: string[][]; nonce: number }) => void,
      ): Promise<void>
      subscriptionAccount(market: string, callback: (event: Json) => void): Promise<void>
      close(): void
    }
  }
  const createClient: () => Client
  export default createClient
}
