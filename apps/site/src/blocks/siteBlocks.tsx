// Blocks of the asset, price, news and blog templates.

import { assetBySlug } from '@polder/catalogue'
import { formatDate, formatDateTime, formatEur, formatEurCompact } from '@polder/i18n'
import type { ReactElement } from 'react'
import { Change } from '../components/Change.tsx'
import { PriceChart } from '../components/PriceChart.tsx'
import { blogTopics } from '../data/blogTopics.ts'
import type { PostSummary } from '../lib/content.ts'
import { useSite } from '../lib/context.tsx'
import { figuresOf, marketSnapshot } from '../lib/marketData.ts'
import { pathOf } from '../lib/routes.ts'

export function PostList({
  title,
  posts,
  headingLevel = 3,
}: {
  title?: string | undefined
  posts: PostSummary[]
  headingLevel?: 2 | 3
}): ReactElement {
  const { lang, t } = useSite()
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  const list = (
    <ul className="post-list">
      {posts.map((post) => (
        <li key={post.slug}>
          <article>
            <Heading>
              <a href={pathOf({ kind: 'blog', slug: post.slug }, lang)}>{post.title}</a>
            </Heading>
            <p className="post-meta">
              <time dateTime={post.date}>{formatDate(lang, post.date)}</time> ·{' '}
              <a href={pathOf({ kind: 'blogList', topic: post.topic }, lang)}>
                {t(`blog.topic.${post.topic}`)}
              </a>
            </p>
            <p>{post.description}</p>
          </article>
        </li>
      ))}
    </ul>
  )
  if (title === undefined) return <section className="block posts">{list}</section>
  return (
    <section className="block posts" aria-label={title}>
      <h2>{title}</h2>
      {list}
    </section>
  )
}

export function TopicFilter({ active }: { active?: string | undefined }): ReactElement {
  const { lang, t } = useSite()
  return (
    <nav className="block topic-filter" aria-label={t('blog.filter.label')}>
      <ul>
        <li>
          <a
            href={pathOf({ kind: 'blogList' }, lang)}
            aria-current={active === undefined ? 'page' : undefined}
          >
            {t('blog.filter.all')}
          </a>
        </li>
        {blogTopics.map((topic) => (
          <li key={topic}>
            <a
              href={pathOf({ kind: 'blogList', topic }, lang)}
              aria-current={active === topic ? 'page' : undefined}
            >
              {t(`blog.topic.${topic}`)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
}

export function AssetNav({ slug }: { slug: string }): ReactElement {
  const { lang, t, route } = useSite()
  const asset = assetBySlug(slug)
  const links = [
    { label: t('asset.nav.overview'), href: pathOf({ kind: 'asset', slug }, lang) },
    { label: t('asset.nav.price'), href: pathOf({ kind: 'price', slug }, lang) },
    { label: t('asset.nav.news'), href: pathOf({ kind: 'news', slug }, lang) },
    { label: t('asset.nav.buy'), href: pathOf({ kind: 'buy', slug }, lang) },
  ]
  return (
    <nav
      className="block asset-nav"
      aria-label={t('asset.nav.label', { name: asset?.name ?? slug })}
    >
      <ul>
        {links.map((link) => (
          <li key={link.href}>
            <a href={link.href} aria-current={link.href === route.path ? 'page' : undefined}>
              {link.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
}

/** "Prices as of …": every build-time figure says when it was taken and where from. */
export function AsOf(): ReactElement {
  const { lang, t } = useSite()
  const snapshot = marketSnapshot()
  const time = formatDateTime(lang, snapshot.takenAt)
  return (
    <p className="as-of">
      {snapshot.source === 'exchange'
        ? t('common.asOf', { time })
        : t('common.referencePrices', { time })}
    </p>
  )
}

export function PriceFigures({ symbol }: { symbol: string; name: string }): ReactElement {
  const { lang, t } = useSite()
  const figures = figuresOf(symbol)
  return (
    <section className="block price-figures" aria-label={t('price.last')}>
      <dl>
        <div>
          <dt>{t('price.last')}</dt>
          <dd className="price">
            {figures?.last == null ? t('price.noData') : formatEur(lang, figures.last)}
          </dd>
        </div>
        <div>
          <dt>{t('price.change24h')}</dt>
          <dd>
            <Change value={figures?.change24h ?? null} empty="–" />
          </dd>
        </div>
        <div>
          <dt>{t('price.volume24h')}</dt>
          <dd>{formatEurCompact(lang, figures?.volumeQuote24h ?? '0')}</dd>
        </div>
      </dl>
      <AsOf />
    </section>
  )
}

export function PriceChartBlock({ symbol, name }: { symbol: string; name: string }): ReactElement {
  const { t } = useSite()
  const points = figuresOf(symbol)?.chart30d ?? []
  return (
    <section className="block price-chart" aria-labelledby={`chart-${symbol}`}>
      <h2 id={`chart-${symbol}`}>{t('price.chart.title', { symbol })}</h2>
      <PriceChart points={points} name={name} />
    </section>
  )
}

export function AssetList({
  title,
  slugs,
  asOf = false,
}: {
  title: string
  slugs: string[]
  asOf?: boolean
}): ReactElement | null {
  const { lang } = useSite()
  if (slugs.length === 0) return null
  return (
    <section className="block asset-list" aria-label={title}>
      <h2>{title}</h2>
      <ul>
        {slugs.map((slug) => {
          const asset = assetBySlug(slug)
          const figures = asset === undefined ? undefined : figuresOf(asset.symbol)
          return (
            <li key={slug}>
              <a href={pathOf({ kind: 'asset', slug }, lang)}>
                <span className="asset-name">{asset?.name ?? slug}</span>{' '}
                <span className="symbol">{asset?.symbol}</span>
              </a>
              <span className="asset-price">
                {figures?.last == null ? '–' : formatEur(lang, figures.last)}{' '}
                <Change value={figures?.change24h ?? null} empty="" />
              </span>
            </li>
          )
        })}
      </ul>
      {asOf ? <AsOf /> : null}
    </section>
  )
}
