import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

describe('the repository pins Node.js 24 for every npm script', () => {
  it('runs this test on Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24')
  })

  it('gives an npm script Node 24 first on its PATH, whatever the machine has', () => {
    // Drop every node_modules/.bin from PATH: the point is what npm itself puts there.
    const machinePath = (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => !dir.includes('node_modules'))
      .join(':')
    const result = spawnSync('npm', ['exec', '--', 'node', '--version'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PATH: machinePath },
    })
    expect(result.status).toBe(0)
    expect(result.stdout.trim()).toMatch(/^v24\./)
  })

  it('states the engines field: >= 20 to bootstrap at the root, 24 in every workspace', () => {
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(rootManifest.engines.node).toBe('>=20')
    expect(rootManifest.devDependencies.node).toMatch(/^\^24\./)
    const workspaces = ['packages', 'apps'].flatMap((group) =>
      readdirSync(join(root, group)).map((entry) => join(group, entry)),
    )
    expect(workspaces.length).toBeGreaterThan(0)
    for (const workspace of workspaces) {
      if (!existsSync(join(root, workspace, 'package.json'))) continue
      const manifest = JSON.parse(readFileSync(join(root, workspace, 'package.json'), 'utf8'))
      expect(manifest.engines.node, workspace).toBe('>=24')
    }
  })
})
