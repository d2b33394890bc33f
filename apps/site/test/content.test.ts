// content/README.md's promise: every content file exists in all six languages, with the same
// front-matter keys as the English one and the same values for everything that is not text
// (dates, topics, the assets a post is about). Titles and descriptions are translated.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { locales } from '@polder/i18n'
import { describe, expect, it } from 'vitest'

const contentDir = new URL('../content/', import.meta.url)

/** Front-matter fields written in the page's language; every other field is the same in all. */
const textFields = new Set(['title', 'description'])

type FrontMatter = Record<string, string | string[]>

function unquote(value: string): string {
  const quoted = /^"(.*)"$/.exec(value) ?? /^'(.*)'$/.exec(value)
  return quoted === null ? value : quoted[1]!
}

/**
 * The front matter of a Markdown file, for the shapes content/ uses: `key: scalar`,
 * `key: [a, b]` and a block list of `  - item` lines. Anything else is an error here, so the test
 * never compares a value it misread.
 */
export function frontMatter(text: string, file: string): FrontMatter {
  const block = /^---\n([\s\S]*?)\n---\n/.exec(text)
  if (block === null) throw new Error(`${file}: no front matter`)
  const result: FrontMatter = {}
  let list: string[] | undefined
  for (const line of block[1]!.split('\n')) {
    const item = /^\s+-\s+(.*)$/.exec(line)
    if (item !== null && list !== undefined) {
      list.push(unquote(item[1]!.trim()))
      continue
    }
    const field = /^([A-Za-z][\w-]*):(?:\s+(.*))?$/.exec(line)
    if (field === null) throw new Error(`${file}: cannot read front-matter line "${line}"`)
    const [, key, raw = ''] = field
    const value = raw.trim()
    if (value === '') {
      list = []
      result[key!] = list
    } else if (value.startsWith('[')) {
      if (!value.endsWith(']')) throw new Error(`${file}: unclosed list in "${line}"`)
      const inner = value.slice(1, -1).trim()
      result[key!] = inner === '' ? [] : inner.split(',').map((entry) => unquote(entry.trim()))
      list = undefined
    } else {
      result[key!] = unquote(value)
      list = undefined
    }
  }
  return result
}

/** The content kinds: folders of content/ with an English folder of Markdown files. */
function kinds(): string[] {
  return readdirSync(contentDir).filter((name) => {
    const english = new URL(`${name}/en/`, contentDir)
    return (
      statSync(new URL(name, contentDir)).isDirectory() &&
      existsSync(english) &&
      readdirSync(english).some((file) => file.endsWith('.md'))
    )
  })
}

function markdownFiles(kind: string, lang: string): string[] {
  const dir = new URL(`${kind}/${lang}/`, contentDir)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .sort()
}

function read(kind: string, lang: string, file: string): FrontMatter {
  const path = `${kind}/${lang}/${file}`
  return frontMatter(readFileSync(new URL(path, contentDir), 'utf8'), path)
}

describe('content files', () => {
  it('are blog posts, legal texts and asset descriptions, each with English originals', () => {
    expect(kinds()).toEqual(expect.arrayContaining(['assets', 'blog', 'legal']))
    for (const kind of kinds()) expect(markdownFiles(kind, 'en').length, kind).toBeGreaterThan(0)
  })

  it('exist in every language exactly as in English: no file missing, none extra', () => {
    for (const kind of kinds()) {
      const english = markdownFiles(kind, 'en')
      for (const lang of locales) {
        const files = markdownFiles(kind, lang)
        expect(
          {
            missing: english.filter((file) => !files.includes(file)),
            extra: files.filter((file) => !english.includes(file)),
          },
          `${kind}/${lang}`,
        ).toEqual({ missing: [], extra: [] })
      }
    }
  })

  it('have the English front-matter keys, and its values wherever a value is not text', () => {
    for (const kind of kinds())
      for (const file of markdownFiles(kind, 'en')) {
        const english = read(kind, 'en', file)
        const shared = Object.fromEntries(
          Object.entries(english).filter(([key]) => !textFields.has(key)),
        )
        for (const lang of locales) {
          const translated = read(kind, lang, file)
          const where = `${kind}/${lang}/${file}`
          expect(Object.keys(translated).sort(), where).toEqual(Object.keys(english).sort())
          expect(
            Object.fromEntries(Object.entries(translated).filter(([key]) => !textFields.has(key))),
            where,
          ).toEqual(shared)
          for (const key of textFields)
            if (key in english) expect(translated[key], `${where} ${key}`).not.toBe('')
        }
      }
  })

  it('reads front matter as content/ writes it, and refuses what it cannot read', () => {
    expect(
      frontMatter(
        '---\ntitle: "A: b"\ndate: 2026-11-20\nassets: [bitcoin, ethereum]\ntags:\n  - x\n  - y\nnone: []\n---\nBody',
        'sample',
      ),
    ).toEqual({
      title: 'A: b',
      date: '2026-11-20',
      assets: ['bitcoin', 'ethereum'],
      tags: ['x', 'y'],
      none: [],
    })
    expect(() => frontMatter('---\n  nested: value\n---\n', 'bad')).toThrow(/cannot read/)
    expect(() => frontMatter('no front matter', 'bad')).toThrow(/no front matter/)
  })
})
