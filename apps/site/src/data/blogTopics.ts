// The blog's topics: one filter page each (`/{lang}/blog/topic/{topic}/`), and the only values a
// post's front matter may name (content.config.ts rejects any other at build).

export const blogTopics = [
  'listings',
  'delistings',
  'staking',
  'weekly-summary',
  'incident',
  'maintenance',
  'partnership',
  'regulation',
  'scam-awareness',
  'taxes',
  'mica',
  'security',
  'guarantee',
  'product',
] as const

export type BlogTopic = (typeof blogTopics)[number]
