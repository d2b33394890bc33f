// Encrypts API secrets at rest with AES-256-GCM under the server's secret key. The key comes
// from POLDER_SECRET_KEY (64 hex characters) or, on the embedded default, from a file in the
// data directory created on first start with owner-only permissions.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { hexSecretFile } from '../storage/dataDir.ts'

const keyBytes = 32
const ivBytes = 12
const tagBytes = 16

export type SecretBox = {
  seal(plaintext: string): string
  open(sealed: string): string
}

export class SecretKeyError extends Error {
  override name = 'SecretKeyError'
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== keyBytes) throw new SecretKeyError(`the secret key must be ${keyBytes} bytes`)
  return {
    seal(plaintext) {
      const iv = randomBytes(ivBytes)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
    },
    open(sealed) {
      const bytes = Buffer.from(sealed, 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, ivBytes))
      decipher.setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes))
      return Buffer.concat([
        decipher.update(bytes.subarray(ivBytes + tagBytes)),
        decipher.final(),
      ]).toString('utf8')
    },
  }
}

export function loadSecretKey(dataDir: string, fromEnv: string | undefined): Buffer {
  if (fromEnv !== undefined) {
    if (!/^[0-9a-f]{64}$/i.test(fromEnv))
      throw new SecretKeyError('POLDER_SECRET_KEY must be 64 hexadecimal characters')
    return Buffer.from(fromEnv, 'hex')
  }
  return Buffer.from(hexSecretFile(dataDir, 'secret.key'), 'hex')
}
