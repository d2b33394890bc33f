#!/usr/bin/env node
// Command line of the exchange server: `npm run exchange -- serve --port 8080`.
import { ConfigError, parseConfig } from './config.ts'
import { createExchangeServer } from './server.ts'

const usage =
  'usage: exchange serve [--host 127.0.0.1] [--port 8080] [--data ./data] [--log-level info]'

async function serve(argv: string[]): Promise<void> {
  const config = parseConfig(argv, process.env)
  const server = await createExchangeServer(config)
  const url = await server.listen()
  const wsUrl = `${url.replace(/^http/, 'ws')}/v2`
  server.app.log.info({ url, wsUrl }, 'exchange server listening')
  if (process.env.POLDER_SUPERVISED === '1') {
    // The line `npm start` waits for; it probes each URL before printing it.
    const urls = [
      { label: 'Exchange REST API', url: `${url}/v2` },
      { label: 'Exchange WebSocket', url: wsUrl, probe: `${url}/health` },
      { label: 'Exchange health', url: `${url}/health` },
    ]
    process.stdout.write(`POLDER_READY ${JSON.stringify({ urls })}\n`)
  }
  let closing = false
  const shutdown = (signal: string): void => {
    if (closing) return
    closing = true
    server.app.log.info({ signal }, 'shutting down')
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

const [command, ...rest] = process.argv.slice(2)
try {
  if (command === 'serve') await serve(rest)
  else {
    console.error(usage)
    process.exit(2)
  }
} catch (error) {
  if (
    error instanceof ConfigError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    console.error(`${(error as Error).message}\n${usage}`)
    process.exit(2)
  }
  throw error
}
