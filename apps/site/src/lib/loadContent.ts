// Turns Astro collection entries (id "{lang}/{slug}", rendered HTML) into the plain content index,
// filling {{token}}s with the page language's figures.

import { isLocale, type Locale } from '@polder/i18n'
import type { BlogTopic } from '../data/blogTopics.ts'
import type { ContentIndex } from './content.ts'
import { fillTokens } from './facts.ts'

type Entry<Data> = { id: string; data: Data; rendered?: { html: string } | undefined }

function split(id: string): { lang: Locale; slug: string } {
  const [lang, slug] = id.split('/')
  if (!isLocale(lang) || slug === undefined)
    throw new Error(`content entry ${id} is not {lang}/{slug}`)
  return { lang, slug }
}

/** Title and description with their tokens filled. */
function texts<Data extends { title: string; description: string }>(
  data: Data,
  lang: Locale,
): Data {
  return {
    ...data,
    title: fillTokens(data.title, lang),
    description: fillTokens(data.description, lang),
  }
}

function html(entry: Entry<unknown>, lang: Locale): string {
  if (entry.rendered === undefined)
    throw new Error(`content entry ${entry.id} has no rendered body`)
  return fillTokens(entry.rendered.html, lang)
}

export function contentIndex(collections: {
  blog: Entry<{
    title: string
    description: string
    date: string
    topic: BlogTopic
    assets: string[]
  }>[]
  legal: Entry<{ title: string; description: string; updated: string }>[]
  assetTexts: Entry<{ description: string }>[]
}): ContentIndex {
  return {
    posts: collections.blog.map((entry) => {
      const { lang, slug } = split(entry.id)
      return { slug, lang, ...texts(entry.data, lang), html: html(entry, lang) }
    }),
    legal: collections.legal.map((entry) => {
      const { lang, slug } = split(entry.id)
      return { slug, lang, ...texts(entry.data, lang), html: html(entry, lang) }
    }),
    assetTexts: collections.assetTexts.map((entry) => {
      const { lang, slug } = split(entry.id)
      return {
        slug,
        lang,
        description: fillTokens(entry.data.description, lang),
        html: html(entry, lang),
      }
    }),
  }
}
