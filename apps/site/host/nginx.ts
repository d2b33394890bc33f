// Writes host/nginx.conf from host/rules.ts: node apps/site/host/nginx.ts
import { writeFileSync } from 'node:fs'
import { nginxConfig } from './rules.ts'

writeFileSync(new URL('./nginx.conf', import.meta.url), nginxConfig())
console.log('host/nginx.conf written')
