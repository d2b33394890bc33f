// Renders the page-building blocks (spec §2). Every block is a landmark-free section with a
// heading, so a page's outline stays one h1 followed by h2s.

import type { ReactElement, ReactNode } from 'react'
import { Icon } from '../components/Icon.tsx'
import { CustomBlock } from './custom/CustomBlock.tsx'
import { Table } from './custom/Table.tsx'
import {
  AssetList,
  AssetNav,
  PostList,
  PriceChartBlock,
  PriceFigures,
  TopicFilter,
} from './siteBlocks.tsx'
import type { Block, Item, Link } from './types.ts'

function headingId(title: string): string {
  return title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
}

function Section({
  title,
  className,
  children,
}: {
  title?: string | undefined
  className: string
  children: ReactNode
}): ReactElement {
  const id = title === undefined ? undefined : headingId(title)
  return (
    <section className={`block ${className}`} aria-labelledby={id}>
      {title === undefined ? null : <h2 id={id}>{title}</h2>}
      {children}
    </section>
  )
}

function ButtonLink({
  link,
  variant = 'default',
}: {
  link: Link
  variant?: 'default' | 'outline'
}): ReactElement {
  return (
    <a className={`button button-${variant}`} href={link.href}>
      {link.label}
    </a>
  )
}

function ItemGrid({ items, className }: { items: Item[]; className: string }): ReactElement {
  return (
    <ul className={className}>
      {items.map((item) => (
        <li key={item.title}>
          {item.icon === undefined ? null : (
            <span className="item-icon">
              <Icon name={item.icon} />
            </span>
          )}
          <h3>{item.href === undefined ? item.title : <a href={item.href}>{item.title}</a>}</h3>
          <p>{item.text}</p>
        </li>
      ))}
    </ul>
  )
}

export function BlockView({ block, island }: { block: Block; island?: ReactNode }): ReactElement {
  switch (block.type) {
    case 'affiliateHeader':
      return (
        <header className="block hero affiliate-header">
          <p className="eyebrow">{block.kind}</p>
          <h1>{block.title}</h1>
          <p className="lead">{block.subtitle}</p>
          <ButtonLink link={block.cta} />
        </header>
      )
    case 'hero':
      return (
        <header className="block hero">
          {block.icon === undefined ? null : (
            <span className="hero-icon">
              <Icon name={block.icon} size={40} />
            </span>
          )}
          <h1>{block.title}</h1>
          <p className="lead">{block.subtitle}</p>
          <p className="actions">
            {block.cta === undefined ? null : <ButtonLink link={block.cta} />}
            {block.secondary === undefined ? null : (
              <ButtonLink link={block.secondary} variant="outline" />
            )}
          </p>
        </header>
      )
    case 'pageHeading':
      return (
        <header className="block page-heading">
          <h1>{block.title}</h1>
          {block.intro === undefined ? null : <p className="lead">{block.intro}</p>}
        </header>
      )
    case 'faq':
      return (
        <Section title={block.title} className="faq">
          {block.items.map((item) => (
            <details key={item.question}>
              <summary>{item.question}</summary>
              <p>{item.answer}</p>
            </details>
          ))}
          {block.support === undefined ? null : (
            <p className="faq-support">
              <a href={block.support.href}>{block.support.label}</a>
            </p>
          )}
        </Section>
      )
    case 'features':
      return (
        <Section title={block.title} className="features">
          <ItemGrid items={block.items} className="grid grid-3" />
        </Section>
      )
    case 'blurbFeatures':
      return (
        <Section title={block.title} className="blurb-features">
          <ItemGrid items={block.items} className="grid grid-2" />
        </Section>
      )
    case 'blurbList':
      return (
        <Section title={block.title} className="blurb-list">
          <ItemGrid items={block.items} className="stack" />
        </Section>
      )
    case 'featuresList':
      return (
        <Section title={block.title} className="features-list">
          <ul className="check-list">
            {block.items.map((item) => (
              <li key={item.title}>
                <Icon name="CircleCheckIcon" size={20} />
                <span>
                  <strong>{item.title}</strong> {item.text}
                </span>
              </li>
            ))}
          </ul>
        </Section>
      )
    case 'metrics':
      return (
        <Section title={block.title} className="metrics">
          <dl className="grid grid-4">
            {block.items.map((item) => (
              <div key={item.label}>
                <dt>{item.label}</dt>
                <dd>{item.value}</dd>
              </div>
            ))}
          </dl>
        </Section>
      )
    case 'steps':
      return (
        <Section title={block.title} className="steps">
          <ol className="grid grid-4 step-list">
            {block.items.map((item) => (
              <li key={item.title}>
                <h3>{item.title}</h3>
                <p>{item.text}</p>
              </li>
            ))}
          </ol>
        </Section>
      )
    case 'testimonial':
      return (
        <Section title={block.title} className="testimonials">
          <div className="grid grid-3">
            {block.items.map((item) => (
              <figure key={item.name}>
                <blockquote>
                  <p>{item.quote}</p>
                </blockquote>
                <figcaption>
                  <strong>{item.name}</strong>, {item.role}
                </figcaption>
              </figure>
            ))}
          </div>
        </Section>
      )
    case 'richText':
      return (
        <Section title={block.title} className="rich-text">
          {/* biome-ignore lint/security/noDangerouslySetInnerHtml: trusted HTML, rendered at build time from the repository's own Markdown and messages */}
          <div className="prose" dangerouslySetInnerHTML={{ __html: block.html }} />
        </Section>
      )
    case 'custom':
      return (
        <Section title={block.title} className={`custom custom-${block.component}`}>
          <CustomBlock component={block.component} island={island} />
        </Section>
      )
    case 'callToAction':
      return (
        <section className="block cta" aria-label={block.title}>
          <p className="cta-title">{block.title}</p>
          <p>{block.text}</p>
          <ButtonLink link={block.cta} />
        </section>
      )
    case 'dataTable':
      return (
        <Section title={block.title} className="data-table">
          <Table
            caption={block.caption}
            columns={block.columns}
            rows={block.rows.map((row) => ({ key: row.join('|'), cells: row }))}
          />
        </Section>
      )
    case 'disclaimer':
      return (
        <aside className="block disclaimer" aria-label={block.title}>
          <p>
            <strong>{block.title}:</strong> {block.text}{' '}
            {block.link === undefined ? null : <a href={block.link.href}>{block.link.label}</a>}
          </p>
        </aside>
      )
    case 'postList':
      return <PostList title={block.title} posts={block.posts} headingLevel={block.headingLevel} />
    case 'topicFilter':
      return <TopicFilter active={block.active} />
    case 'assetNav':
      return <AssetNav slug={block.slug} />
    case 'priceFigures':
      return <PriceFigures symbol={block.symbol} name={block.name} />
    case 'priceChart':
      return <PriceChartBlock symbol={block.symbol} name={block.name} />
    case 'assetList':
      return <AssetList title={block.title} slugs={block.slugs} asOf={block.asOf === true} />
    case 'brands':
      return (
        <Section title={block.title} className="brands">
          <ul className="brand-list">
            {block.items.map((item) => (
              <li key={item.href}>
                <a href={item.href}>{item.label}</a>
              </li>
            ))}
          </ul>
        </Section>
      )
  }
}

export function Blocks({
  blocks,
  island,
}: {
  blocks: readonly Block[]
  island?: ReactNode
}): ReactElement {
  return (
    <>
      {blocks.map((block, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a page's blocks are a fixed list
        <BlockView key={index} block={block} island={island} />
      ))}
    </>
  )
}
