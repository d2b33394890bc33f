// The base of the links the server hands out (asset icons): the configured public URL, else the
// address the request reached; never the Host header, which the client chooses.
import type { FastifyRequest } from 'fastify'
import { describe, expect, it } from 'vitest'
import { linkBase } from '../src/api/webRoutes.ts'

function reached(localAddress: string, localPort: number, host = 'attacker.example') {
  return {
    protocol: 'http',
    headers: { host },
    socket: { localAddress, localPort },
  } as unknown as FastifyRequest
}

describe('linkBase', () => {
  it('is the configured public URL when there is one', () => {
    expect(linkBase(reached('127.0.0.1', 8080), 'https://polder.example/api')).toBe(
      'https://polder.example/api',
    )
  })

  it('is the address and port the request reached otherwise, IPv6 in brackets', () => {
    expect(linkBase(reached('127.0.0.1', 8080), undefined)).toBe('http://127.0.0.1:8080')
    expect(linkBase(reached('::ffff:10.0.0.5', 8443), undefined)).toBe('http://10.0.0.5:8443')
    expect(linkBase(reached('::1', 9000), undefined)).toBe('http://[::1]:9000')
    expect(linkBase(reached('fe80::1%eth0', 9000), undefined)).toBe('http://[fe80::1]:9000')
  })
})
