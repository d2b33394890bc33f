// Prometheus metrics at /metrics: process and event-loop figures (prom-client's defaults,
// including event-loop lag), plus the exchange's own counters and gauges.
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'

export type ExchangeMetrics = {
  registry: Registry
  commands: Counter<'kind' | 'outcome'>
  openSockets: Gauge
}

export function createMetrics(): ExchangeMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'polder_' })
  return {
    registry,
    commands: new Counter({
      name: 'polder_commands_total',
      help: 'Commands submitted to the core, by kind and outcome (accepted or the errorCode).',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    openSockets: new Gauge({
      name: 'polder_websocket_connections',
      help: 'Open WebSocket connections.',
      registers: [registry],
    }),
  }
}
