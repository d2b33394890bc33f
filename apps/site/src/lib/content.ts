// The long texts of content/ as plain data (the route file loads them through Astro's content
// collections and hands them here), so templates and tests need no Astro runtime.

import type { Locale } from '@polder/i18n'
import type { BlogTopic } from '../data/blogTopics.ts'

export type BlogPost = {
  slug: string
  lang: Locale
  title: string
  description: string
  /** YYYY-MM-DD */
  date: string
  topic: BlogTopic
  assets: string[]
  html: string
}

export type LegalDoc = {
  slug: string
  lang: Locale
  title: string
  description: string
  updated: string
  html: string
}

export type AssetText = { slug: string; lang: Locale; description: string; html: string }

export type ContentIndex = {
  posts: BlogPost[]
  legal: LegalDoc[]
  assetTexts: AssetText[]
}

/** A post's summary for lists (no body). */
export type PostSummary = Omit<BlogPost, 'html'>

export function summary(post: BlogPost): PostSummary {
  const { html: _html, ...rest } = post
  return rest
}

/** Posts of a language, newest first (ties by slug, so builds are reproducible). */
export function postsOf(content: ContentIndex, lang: Locale): BlogPost[] {
  return content.posts
    .filter((post) => post.lang === lang)
    .sort((a, b) => b.date.localeCompare(a.date) || a.slug.localeCompare(b.slug))
}
