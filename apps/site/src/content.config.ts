// Content collections: blog posts, legal texts and hand-written asset descriptions, one Markdown
// file per language (see content/README.md). The schemas reject a malformed front matter at build.

import { defineCollection } from 'astro:content'
import { glob } from 'astro/loaders'
import { z } from 'astro/zod'
import { blogTopics } from './data/blogTopics.ts'

// YAML reads an unquoted 2026-11-03 as a date; either way the entry carries the day as text.
const date = z
  .union([z.string().regex(/^\d{4}-\d{2}-\d{2}$/), z.date()])
  .transform((value) => (typeof value === 'string' ? value : value.toISOString().slice(0, 10)))
const description = z.string().min(20).max(200)

const blog = defineCollection({
  loader: glob({ pattern: '*/*.md', base: './content/blog' }),
  schema: z.strictObject({
    title: z.string().min(5).max(120),
    description,
    date,
    topic: z.enum(blogTopics),
    assets: z.array(z.string()).default([]),
  }),
})

const legal = defineCollection({
  loader: glob({ pattern: '*/*.md', base: './content/legal' }),
  schema: z.strictObject({ title: z.string().min(3).max(120), description, updated: date }),
})

const assetTexts = defineCollection({
  loader: glob({ pattern: '*/*.md', base: './content/assets' }),
  schema: z.strictObject({ description }),
})

export const collections = { blog, legal, assetTexts }
