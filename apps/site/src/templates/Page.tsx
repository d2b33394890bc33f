// One template per kind of page (spec §2: affiliate, blog, blog list, buy, default, legal, news,
// price, 404); each lays out its blocks inside the shared chrome.

import { formatDate } from '@polder/i18n'
import type { ReactElement, ReactNode } from 'react'
import { Blocks } from '../blocks/Blocks.tsx'
import { Breadcrumbs, SiteFooter, SiteHeader, SkipLink } from '../components/Chrome.tsx'
import { createSiteContext, SiteProvider, useSite } from '../lib/context.tsx'
import type { Route } from '../lib/routes.ts'
import type { TemplateKind, View } from '../lib/views.ts'

type TemplateProps = { view: View; island?: ReactNode }

function BlocksTemplate({ view, island }: TemplateProps): ReactElement {
  return (
    <>
      <Breadcrumbs items={view.crumbs} />
      <Blocks blocks={view.blocks} island={island} />
    </>
  )
}

function BlogTemplate({ view }: TemplateProps): ReactElement {
  const { lang, t } = useSite()
  const [body, ...rest] = view.blocks
  return (
    <>
      <Breadcrumbs items={view.crumbs} />
      <article className="article">
        <header className="block page-heading">
          <h1>{view.title}</h1>
          {view.article === undefined ? null : (
            <p className="post-meta">
              <time dateTime={view.article.published}>
                {t('common.published', { date: formatDate(lang, view.article.published) })}
              </time>
            </p>
          )}
          <p className="lead">{view.description}</p>
        </header>
        {body === undefined ? null : <Blocks blocks={[body]} />}
      </article>
      <Blocks blocks={rest} />
    </>
  )
}

function LegalTemplate({ view }: TemplateProps): ReactElement {
  return (
    <>
      <Breadcrumbs items={view.crumbs} />
      <article className="article legal">
        <Blocks blocks={view.blocks} />
      </article>
    </>
  )
}

const templates: Record<TemplateKind, (props: TemplateProps) => ReactElement> = {
  default: BlocksTemplate,
  affiliate: BlocksTemplate,
  buy: BlocksTemplate,
  asset: BlocksTemplate,
  price: BlocksTemplate,
  news: BlocksTemplate,
  blogList: BlocksTemplate,
  notFound: BlocksTemplate,
  legal: LegalTemplate,
  blog: BlogTemplate,
}

/** The body of every page: chrome around the template of the view's kind. */
export function Page({
  route,
  view,
  tradeUrl,
  children,
}: {
  route: Route
  view: View
  tradeUrl: string
  /** An island the route file hydrates (markets table, cookie settings). */
  children?: ReactNode
}): ReactElement {
  const Template = templates[view.template]
  return (
    <SiteProvider value={createSiteContext(route, tradeUrl)}>
      <SkipLink />
      <SiteHeader />
      <main id="main" className={`template-${view.template}`} tabIndex={-1}>
        <Template view={view} island={children} />
      </main>
      <SiteFooter />
    </SiteProvider>
  )
}
