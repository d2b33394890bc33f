// What each route shows: title, description, breadcrumbs, structured data and its blocks. Pages
// are composed here from the spec's blocks; texts come from the message catalogues (figures
// through placeholders filled from the catalogue and the brand facts) and from content/.

import { assetBySlug, brandFacts, markets, minOrderInQuoteAsset } from '@polder/catalogue'
import {
  formatDate,
  formatEur,
  formatNumber,
  formatPercent,
  type Locale,
  localeTags,
  type MessageKey,
} from '@polder/i18n'
import type { Block, Item, Link } from '../blocks/types.ts'
import type { Crumb } from '../components/Chrome.tsx'
import { affiliatePartners } from '../data/affiliates.ts'
import { blogTopics } from '../data/blogTopics.ts'
import { localSiteCountries } from '../data/countries.ts'
import { scheduledMaintenance } from '../data/maintenance.ts'
import { popularAssetSlugs } from '../data/popular.ts'
import {
  assetAmount,
  consensusRow,
  relatedAssetSlugs,
  supplyRows,
  sustainabilityRows,
} from './assetFacts.ts'
import { assetSummary } from './assetSummaries.ts'
import { type BlogPost, type ContentIndex, type PostSummary, postsOf, summary } from './content.ts'
import type { SiteContext } from './context.tsx'
import { factValues, productFacts } from './facts.ts'
import { maintenanceWindowText } from './maintenanceWindow.ts'
import { type PageKey, pathOf, type Route } from './routes.ts'

export type TemplateKind =
  | 'default'
  | 'legal'
  | 'blog'
  | 'blogList'
  | 'affiliate'
  | 'buy'
  | 'asset'
  | 'price'
  | 'news'
  | 'notFound'

export type View = {
  template: TemplateKind
  title: string
  description: string
  crumbs: Crumb[]
  blocks: Block[]
  /** schema.org objects for the page's JSON-LD. */
  structuredData: object[]
  ogType: 'website' | 'article'
  island?: 'markets' | 'cookies'
  /** For blog posts: the article's dates. */
  article?: { published: string; updated?: string }
}

function assetOf(slug: string) {
  const asset = assetBySlug(slug)
  if (asset === undefined) throw new Error(`no asset ${slug}`)
  return asset
}

function crumbs(ctx: SiteContext, ...rest: Crumb[]): Crumb[] {
  return [{ label: ctx.t('breadcrumb.home'), href: pathOf({ kind: 'home' }, ctx.lang) }, ...rest]
}

function signup(ctx: SiteContext, label: MessageKey = 'common.signupCta') {
  return { label: ctx.t(label), href: `${ctx.tradeUrl}/signup` }
}

/** The home page's closing call to sign up, also closing the about page. */
function signupCallToAction(ctx: SiteContext): Block {
  return {
    type: 'callToAction',
    title: ctx.t('home.cta.title'),
    text: ctx.t('home.cta.text'),
    cta: signup(ctx, 'cta.signup'),
  }
}

/** Posts under the "latest posts" heading: the home page's, an asset's, a post's neighbours. */
function latestPosts(ctx: SiteContext, posts: PostSummary[]): Block {
  return { type: 'postList', title: ctx.t('asset.latestPosts'), posts }
}

function disclaimer(ctx: SiteContext): Block {
  return {
    type: 'disclaimer',
    title: ctx.t('disclaimer.title'),
    text: ctx.t('disclaimer.crypto'),
    link: { label: ctx.t('disclaimer.link'), href: `/${ctx.lang}/risk-disclosure/` },
  }
}

function faq(ctx: SiteContext, ids: string[]): Block {
  return {
    type: 'faq',
    title: ctx.t('faq.title'),
    items: ids.map((id) => ({
      question: ctx.t(`faq.${id}.q` as MessageKey),
      answer: ctx.t(`faq.${id}.a` as MessageKey),
    })),
    support: { label: ctx.t('faq.supportLink'), href: `mailto:${brandFacts.emails.support}` },
  }
}

function items(ctx: SiteContext, prefix: string, entries: [string, Item['icon']][]): Item[] {
  return entries.map(([id, icon]) => ({
    icon,
    title: ctx.t(`${prefix}.${id}.title` as MessageKey),
    text: ctx.t(`${prefix}.${id}.text` as MessageKey),
  }))
}

function testimonials(ctx: SiteContext): Block {
  return {
    type: 'testimonial',
    title: ctx.t('testimonials.title'),
    items: ['1', '2', '3'].map((id) => ({
      quote: ctx.t(`testimonials.${id}.quote` as MessageKey),
      name: ctx.t(`testimonials.${id}.name` as MessageKey),
      role: ctx.t(`testimonials.${id}.role` as MessageKey),
    })),
  }
}

function metrics(ctx: SiteContext): Block {
  const facts = productFacts()
  const { lang } = ctx
  const list = [
    {
      value: `${formatNumber(lang, brandFacts.usersMin, { notation: 'compact' })}+`,
      label: ctx.t('home.metrics.users'),
    },
    { value: `${formatNumber(lang, facts.assetCount)}`, label: ctx.t('home.metrics.assets') },
    { value: String(brandFacts.launchYear), label: ctx.t('home.metrics.since') },
    {
      value: `${formatNumber(lang, brandFacts.rating.score)}/${brandFacts.rating.outOf}`,
      label: ctx.t('home.metrics.rating', { reviews: brandFacts.rating.reviewsMin }),
    },
    {
      value: `${formatEurCompactWhole(lang, brandFacts.totalVolumeEurMin)}+`,
      label: ctx.t('home.metrics.volume'),
    },
  ]
  // The 30-day volume figure is shown in English only (a marketing decision, spec §1).
  if (lang === 'en')
    list.push({
      value: formatEurCompactWhole(lang, brandFacts.volume30dEurMillions * 1_000_000),
      label: ctx.t('home.metrics.volume30d'),
    })
  return { type: 'metrics', title: ctx.t('home.metrics.title'), items: list }
}

function formatEurCompactWhole(lang: Locale, value: number): string {
  return new Intl.NumberFormat(localeTags[lang], {
    style: 'currency',
    currency: 'EUR',
    notation: 'compact',
    maximumFractionDigits: 0,
  }).format(value)
}

function homeView(ctx: SiteContext, content: ContentIndex): View {
  const { t, lang } = ctx
  const latest = postsOf(content, lang).slice(0, 3).map(summary)
  return {
    template: 'default',
    title: t('home.title'),
    description: t('home.description'),
    crumbs: [],
    ogType: 'website',
    structuredData: [organization()],
    blocks: [
      {
        type: 'hero',
        title: t('home.hero.title'),
        subtitle: t('home.hero.subtitle'),
        cta: signup(ctx),
        secondary: { label: t('cta.viewMarkets'), href: `/${lang}/markets/` },
        icon: 'LogoIcon',
      },
      { type: 'custom', component: 'top5MarketsTable', title: t('home.top5.title') },
      {
        type: 'features',
        title: t('home.features.title'),
        items: items(ctx, 'home.features', [
          ['fees', 'PercentIcon'],
          ['assets', 'BitcoinIcon'],
          ['payments', 'EuroIcon'],
          ['staking', 'LineChartIcon'],
          ['security', 'ShieldCheckIcon'],
          ['app', 'SmartphoneIcon'],
        ]),
      },
      metrics(ctx),
      {
        type: 'steps',
        title: t('home.steps.title'),
        items: items(ctx, 'home.steps', [
          ['account', 'UserIcon'],
          ['verify', 'ClipboardCheckIcon'],
          ['deposit', 'EuroIcon'],
          ['trade', 'ArrowLeftRightIcon'],
        ]),
      },
      testimonials(ctx),
      {
        type: 'custom',
        component: 'customerReviews',
        title: t('reviews.title', {
          rating: brandFacts.rating.score,
          outOf: brandFacts.rating.outOf,
        }),
      },
      faq(ctx, ['home.safe', 'home.cost', 'home.min', 'home.countries']),
      latestPosts(ctx, latest),
      signupCallToAction(ctx),
      disclaimer(ctx),
    ],
  }
}

function organization(): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: brandFacts.companyName,
    alternateName: [brandFacts.brandName, brandFacts.predecessorBrand.name],
    foundingDate: String(brandFacts.launchYear),
    email: brandFacts.emails.support,
    address: {
      '@type': 'PostalAddress',
      streetAddress: brandFacts.address.street,
      postalCode: brandFacts.address.postcode,
      addressLocality: brandFacts.address.city,
      addressCountry: brandFacts.address.country,
    },
  }
}

function simplePage(
  ctx: SiteContext,
  key: PageKey,
  title: string,
  description: string,
  blocks: Block[],
  extra: Partial<View> = {},
): View {
  return {
    template: 'default',
    title,
    description,
    crumbs: crumbs(ctx, { label: title, href: pathOf(key, ctx.lang) }),
    blocks,
    structuredData: [],
    ogType: 'website',
    ...extra,
  }
}

function defaultView(ctx: SiteContext, key: Extract<PageKey, { kind: 'default' }>): View {
  const { t, lang } = ctx
  const values = factValues(lang)
  switch (key.slug) {
    case 'about':
      return simplePage(ctx, key, t('about.title'), t('about.description'), [
        { type: 'pageHeading', title: t('about.heading'), intro: t('about.intro') },
        {
          type: 'richText',
          title: t('about.story.title'),
          html: `<p>${escapeHtml(t('about.story.text'))}</p>`,
        },
        { type: 'custom', component: 'about', title: t('about.facts.title') },
        {
          type: 'blurbFeatures',
          title: t('about.values.title'),
          items: items(ctx, 'about.values', [
            ['honest', 'DoubleCheckIcon'],
            ['fast', 'ZapIcon'],
            ['european', 'MapPinIcon'],
          ]),
        },
        metrics(ctx),
        signupCallToAction(ctx),
      ])
    case 'affiliates':
      return simplePage(ctx, key, t('affiliates.title'), t('affiliates.description'), [
        {
          type: 'hero',
          title: t('affiliates.hero.title'),
          subtitle: t('affiliates.hero.subtitle'),
          cta: { label: t('cta.applyNow'), href: `mailto:${brandFacts.emails.partners}` },
          icon: 'SplitIcon',
        },
        {
          type: 'steps',
          title: t('affiliates.steps.title'),
          items: items(ctx, 'affiliates.steps', [
            ['1', 'ClipboardCheckIcon'],
            ['2', 'SplitIcon'],
            ['3', 'EuroIcon'],
          ]),
        },
        faq(ctx, ['affiliates.who', 'affiliates.pay']),
        {
          type: 'brands',
          title: t('affiliates.partners.title'),
          items: affiliatePartners.map((partner) => ({
            label: partner.name,
            href: pathOf({ kind: 'affiliate', slug: partner.slug }, lang),
          })),
        },
      ])
    case 'careers':
      return simplePage(ctx, key, t('careers.title'), t('careers.description'), [
        {
          type: 'hero',
          title: t('careers.hero.title'),
          subtitle: t('careers.hero.subtitle'),
          icon: 'UserIcon',
        },
        {
          type: 'blurbList',
          title: t('careers.jobs.title'),
          items: items(ctx, 'careers.jobs', [
            ['engineer', 'ServerIcon'],
            ['frontend', 'Layers2Icon'],
            ['compliance', 'ClipboardCheckIcon'],
            ['support', 'UserIcon'],
          ]),
        },
        {
          type: 'callToAction',
          title: t('careers.jobs.title'),
          text: t('careers.cta.text'),
          cta: { label: t('cta.contactUs'), href: `mailto:${brandFacts.emails.support}` },
        },
      ])
    case 'cookie-settings':
      return simplePage(
        ctx,
        key,
        t('cookies.title'),
        t('cookies.description'),
        [
          { type: 'pageHeading', title: t('cookies.heading'), intro: t('cookies.intro') },
          { type: 'custom', component: 'cookieSettings' },
          {
            type: 'richText',
            html: `<p><a href="/${lang}/cookie-policy/">${escapeHtml(t('cookies.policyLink'))}</a></p>`,
          },
        ],
        { island: 'cookies' },
      )
    case 'countries':
      return simplePage(ctx, key, t('countries.title'), t('countries.description'), [
        { type: 'pageHeading', title: t('countries.heading'), intro: t('countries.intro') },
        { type: 'custom', component: 'countriesTable' },
        // The Belgian regulator's warning, for as long as Belgium is served through its own site.
        ...(localSiteCountries.includes('BE')
          ? [
              {
                type: 'disclaimer',
                title: t('disclaimer.title'),
                text: t('disclaimer.belgium'),
              } satisfies Block,
            ]
          : []),
      ])
    case 'dijkwerk': {
      const brand = brandFacts.predecessorBrand
      const names = {
        predecessorBrand: brand.name,
        from: String(brand.from),
        until: String(brand.until),
      }
      return simplePage(
        ctx,
        key,
        t('predecessor.title', names),
        t('predecessor.description', names),
        [
          {
            type: 'pageHeading',
            title: t('predecessor.heading', names),
            intro: t('predecessor.intro', names),
          },
          {
            type: 'richText',
            title: t('predecessor.what.title'),
            html: `<p>${escapeHtml(t('predecessor.what.text'))}</p>`,
          },
          {
            type: 'callToAction',
            title: t('predecessor.login.title', names),
            text: t('predecessor.login.text', names),
            cta: { label: t('cta.login'), href: `${ctx.tradeUrl}/login` },
          },
        ],
      )
    }
    case 'enterprise':
      return simplePage(ctx, key, t('enterprise.title'), t('enterprise.description'), [
        {
          type: 'hero',
          title: t('enterprise.hero.title'),
          subtitle: t('enterprise.hero.subtitle'),
          cta: { label: t('cta.contactUs'), href: `mailto:${brandFacts.emails.partners}` },
          icon: 'TieIcon',
        },
        {
          type: 'features',
          title: t('enterprise.features.title'),
          items: [
            ...items(ctx, 'enterprise.features', [
              ['accounts', 'BuildingIcon'],
              ['otc', 'ArrowLeftRightIcon'],
              ['api', 'ServerIcon'],
            ]),
            {
              icon: 'BarChart2Icon',
              title: t('enterprise.features.limits.title'),
              // The business level's daily limits in the catalogue's account limits.
              text: t('enterprise.features.limits.text', {
                limit: String(values.businessDailyLimit),
              }),
            },
            ...items(ctx, 'enterprise.features', [
              ['reporting', 'ClipboardCheckIcon'],
              ['support', 'TieIcon'],
            ]),
          ],
        },
        { type: 'custom', component: 'tradingLimitsTable', title: t('fees.limits.title') },
      ])
    case 'fees':
      return simplePage(ctx, key, t('fees.title'), t('fees.description'), [
        { type: 'pageHeading', title: t('fees.heading'), intro: t('fees.intro') },
        { type: 'custom', component: 'tradingFeesTable', title: t('fees.trading.title') },
        { type: 'custom', component: 'paymentMethodsTable', title: t('fees.payments.title') },
        { type: 'custom', component: 'tradingLimitsTable', title: t('fees.limits.title') },
        { type: 'custom', component: 'withdrawalFeesTable', title: t('fees.withdrawal.title') },
        faq(ctx, ['fees.tier', 'fees.withdraw', 'fees.deposit']),
        disclaimer(ctx),
      ])
    case 'markets':
      return simplePage(
        ctx,
        key,
        t('markets.title'),
        t('markets.description'),
        [
          { type: 'pageHeading', title: t('markets.heading'), intro: t('markets.intro') },
          { type: 'custom', component: 'marketsTable' },
          disclaimer(ctx),
        ],
        { island: 'markets' },
      )
    case 'press':
      return simplePage(ctx, key, t('press.title'), t('press.description'), [
        { type: 'pageHeading', title: t('press.heading'), intro: t('press.intro') },
        metrics(ctx),
        { type: 'custom', component: 'about', title: t('about.facts.title') },
        {
          type: 'richText',
          html: `<p>${escapeHtml(t('press.contact', { email: String(values.pressEmail) }))}</p>`,
        },
      ])
    case 'security':
      return simplePage(ctx, key, t('security.title'), t('security.description'), [
        {
          type: 'hero',
          title: t('security.hero.title'),
          subtitle: t('security.hero.subtitle'),
          icon: 'ShieldCheckIcon',
        },
        {
          type: 'featuresList',
          title: t('security.features.title'),
          items: items(ctx, 'security.features', [
            ['cold', 'LockKeyholeIcon'],
            ['2fa', 'KeyRoundIcon'],
            ['guarantee', 'ShieldCheckIcon'],
            ['segregation', 'EuroIcon'],
            ['monitoring', 'EyeIcon'],
            ['disclosure', 'ActivitySquareIcon'],
          ]),
        },
        faq(ctx, ['security.2fa', 'security.guarantee']),
      ])
    case 'status':
      return simplePage(ctx, key, t('status.title'), t('status.description'), [
        { type: 'pageHeading', title: t('status.heading'), intro: t('status.intro') },
        { type: 'custom', component: 'statusTable' },
      ])
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function assetNames(slug: string) {
  const asset = assetOf(slug)
  return { name: asset.name, symbol: asset.symbol }
}

/** Same-category assets, largest market size first (reference price × circulating supply). */
function relatedAssets(ctx: SiteContext, slug: string): Block {
  return { type: 'assetList', title: ctx.t('markets.related'), slugs: relatedAssetSlugs(slug, 6) }
}

function popularSlugs(slug: string): string[] {
  return popularAssetSlugs.filter((other) => other !== slug).slice(0, 6)
}

/** The templated description of an asset without a hand-written one. */
export function templatedAssetText(ctx: SiteContext, slug: string): string {
  const { t, lang } = ctx
  const asset = assetOf(slug)
  const market = markets.find((candidate) => candidate.base === asset.symbol)
  const sentences = [
    t('asset.templated', {
      name: asset.name,
      symbol: asset.symbol,
      category: t(`category.${asset.category}` as MessageKey),
      networks: asset.networks.length === 1 ? 'one' : 'other',
      network: asset.networks[0] ?? '',
      launchYear: asset.launchYear === undefined ? 'unknown' : String(asset.launchYear),
      market: market?.market ?? `${asset.symbol}-EUR`,
    }),
  ]
  if (asset.staking?.eligible === true)
    sentences.push(
      t('asset.templated.staking', {
        symbol: asset.symbol,
        yield: formatPercent(lang, Number(asset.staking.yieldPercentPerYear)),
      }),
    )
  if (asset.category === 'stablecoin')
    sentences.push(t('asset.templated.stablecoin', { symbol: asset.symbol }))
  // The catalogue's sentence in the page's language (content/asset-summaries/).
  return `<p>${escapeHtml(sentences.join(' ').replace(/\s+/g, ' ').trim())}</p><p>${escapeHtml(assetSummary(lang, slug))}</p>`
}

function factsBlock(ctx: SiteContext, slug: string): Block {
  const { t, lang } = ctx
  const asset = assetOf(slug)
  const market = markets.find((candidate) => candidate.base === asset.symbol)
  const rows: string[][] = [
    [t('asset.facts.symbol'), asset.symbol],
    [t('asset.facts.category'), t(`category.${asset.category}` as MessageKey)],
    [t('asset.facts.network'), asset.networks.join(', ')],
    ...supplyRows(ctx, asset),
    consensusRow(ctx, asset),
    ...sustainabilityRows(ctx, asset),
  ]
  if (asset.launchYear !== undefined) rows.push([t('asset.facts.launch'), String(asset.launchYear)])
  rows.push(
    [t('asset.facts.market'), market?.market ?? '–'],
    [t('asset.facts.minOrder'), formatEur(lang, minOrderInQuoteAsset)],
    [
      t('asset.facts.status'),
      `${t(`asset.status.${asset.depositStatus}`)} / ${t(`asset.status.${asset.withdrawalStatus}`)}`,
    ],
    [t('asset.facts.withdrawalFee'), assetAmount(lang, asset.withdrawalFee, asset)],
    [
      t('asset.facts.staking'),
      asset.staking?.eligible === true
        ? t('asset.facts.stakingYes', {
            yield: formatPercent(lang, Number(asset.staking.yieldPercentPerYear)),
          })
        : t('common.no'),
    ],
  )
  return {
    type: 'dataTable',
    title: t('asset.facts.title', { name: asset.name }),
    caption: `${t('asset.facts.caption', { name: asset.name })}. ${t('asset.facts.micaNote')}`,
    columns: [t('asset.facts.fact'), t('asset.facts.value')],
    rows,
  }
}

function postsAbout(content: ContentIndex, lang: Locale, slug: string): PostSummary[] {
  return postsOf(content, lang)
    .filter((post) => post.assets.includes(slug))
    .map(summary)
}

/** Home › Markets › the asset, then the price or news page when the key is one of those. */
function assetCrumbs(
  ctx: SiteContext,
  key: Extract<PageKey, { kind: 'asset' | 'price' | 'news' }>,
): Crumb[] {
  const { t, lang } = ctx
  const trail: Crumb[] = [
    { label: t('nav.markets'), href: `/${lang}/markets/` },
    { label: assetOf(key.slug).name, href: pathOf({ kind: 'asset', slug: key.slug }, lang) },
  ]
  if (key.kind !== 'asset')
    trail.push({ label: t(`asset.nav.${key.kind}`), href: pathOf(key, lang) })
  return crumbs(ctx, ...trail)
}

/** "Buy {name}", to the asset's buy page. */
function buyLink(ctx: SiteContext, slug: string): Link {
  return {
    label: ctx.t('common.buyAsset', assetNames(slug)),
    href: pathOf({ kind: 'buy', slug }, ctx.lang),
  }
}

/** The asset and price pages' closing call to buy the asset. */
function buyCallToAction(ctx: SiteContext, slug: string): Block {
  const names = assetNames(slug)
  return {
    type: 'callToAction',
    title: ctx.t('asset.cta.title', names),
    text: ctx.t('asset.cta.text', names),
    cta: buyLink(ctx, slug),
  }
}

function assetView(ctx: SiteContext, content: ContentIndex, slug: string): View {
  const { t, lang } = ctx
  const names = assetNames(slug)
  const text = content.assetTexts.find((entry) => entry.slug === slug && entry.lang === lang)
  return {
    template: 'asset',
    title: t('asset.pageTitle', names),
    description: text?.description ?? t('asset.description', names),
    crumbs: assetCrumbs(ctx, { kind: 'asset', slug }),
    ogType: 'website',
    structuredData: [],
    blocks: [
      {
        type: 'hero',
        title: t('asset.title', names),
        subtitle: t('asset.subtitle', names),
        cta: buyLink(ctx, slug),
      },
      { type: 'assetNav', slug },
      { type: 'priceFigures', ...names },
      {
        type: 'richText',
        title: t('asset.about', names),
        html: text?.html ?? templatedAssetText(ctx, slug),
      },
      factsBlock(ctx, slug),
      { type: 'assetList', title: t('markets.popular'), slugs: popularSlugs(slug) },
      relatedAssets(ctx, slug),
      latestPosts(ctx, latestFor(content, lang, slug)),
      buyCallToAction(ctx, slug),
      disclaimer(ctx),
    ],
  }
}

function latestFor(content: ContentIndex, lang: Locale, slug: string): PostSummary[] {
  const about = postsAbout(content, lang, slug)
  const rest = postsOf(content, lang)
    .filter((post) => !post.assets.includes(slug))
    .map(summary)
  return [...about, ...rest].slice(0, 3)
}

function priceView(ctx: SiteContext, content: ContentIndex, slug: string): View {
  const { t, lang } = ctx
  const names = assetNames(slug)
  return {
    template: 'price',
    title: t('price.title', names),
    description: t('price.description', names),
    crumbs: assetCrumbs(ctx, { kind: 'price', slug }),
    ogType: 'website',
    structuredData: [],
    blocks: [
      { type: 'pageHeading', title: t('price.heading', names), intro: t('price.subtitle', names) },
      { type: 'assetNav', slug },
      { type: 'priceFigures', ...names },
      { type: 'priceChart', ...names },
      relatedAssets(ctx, slug),
      latestPosts(ctx, latestFor(content, lang, slug)),
      buyCallToAction(ctx, slug),
      disclaimer(ctx),
    ],
  }
}

function newsView(ctx: SiteContext, content: ContentIndex, slug: string): View {
  const { t, lang } = ctx
  const names = assetNames(slug)
  const about = postsAbout(content, lang, slug)
  const blocks: Block[] = [
    { type: 'pageHeading', title: t('news.heading', names), intro: t('news.subtitle', names) },
    { type: 'assetNav', slug },
  ]
  if (about.length > 0) blocks.push({ type: 'postList', posts: about })
  else {
    blocks.push({ type: 'richText', html: `<p>${escapeHtml(t('news.none', names))}</p>` })
    blocks.push({ type: 'postList', posts: postsOf(content, lang).slice(0, 5).map(summary) })
  }
  // The news page's only prices are in this list, so it says when they were taken.
  blocks.push({
    type: 'assetList',
    title: t('markets.popular'),
    slugs: popularSlugs(slug),
    asOf: true,
  })
  return {
    template: 'news',
    title: t('news.title', names),
    description: t('news.description', names),
    crumbs: assetCrumbs(ctx, { kind: 'news', slug }),
    ogType: 'website',
    structuredData: [],
    blocks,
  }
}

function buyView(ctx: SiteContext, slug: string): View {
  const { t, lang } = ctx
  const names = assetNames(slug)
  return {
    template: 'buy',
    title: t('buy.title', names),
    description: t('buy.description', names),
    crumbs: crumbs(
      ctx,
      { label: names.name, href: pathOf({ kind: 'asset', slug }, lang) },
      { label: t('asset.nav.buy'), href: pathOf({ kind: 'buy', slug }, lang) },
    ),
    ogType: 'website',
    structuredData: [],
    blocks: [
      {
        type: 'hero',
        title: t('buy.heading', names),
        subtitle: t('buy.subtitle', names),
        cta: signup(ctx),
      },
      { type: 'assetNav', slug },
      { type: 'priceFigures', ...names },
      {
        type: 'steps',
        title: t('buy.steps.title', names),
        items: [
          {
            icon: 'UserIcon',
            title: t('home.steps.account.title'),
            text: t('home.steps.account.text'),
          },
          {
            icon: 'EuroIcon',
            title: t('home.steps.deposit.title'),
            text: t('home.steps.deposit.text'),
          },
          {
            icon: 'BitcoinIcon',
            title: t('common.buyAsset', names),
            text: t('buy.steps.3.text', names),
          },
        ],
      },
      { type: 'custom', component: 'paymentMethodsTable', title: t('buy.payments.title') },
      faq(ctx, ['home.cost', 'home.min', 'home.safe']),
      disclaimer(ctx),
    ],
  }
}

function affiliateView(ctx: SiteContext, slug: string): View {
  const { t, lang } = ctx
  const partner = affiliatePartners.find((candidate) => candidate.slug === slug)
  if (partner === undefined) throw new Error(`no affiliate ${slug}`)
  const values = { partner: partner.name, amount: formatEur(lang, partner.feeFreeVolumeEur) }
  return {
    template: 'affiliate',
    title: t('affiliate.title', values),
    description: t('affiliate.description', values),
    crumbs: crumbs(
      ctx,
      { label: t('nav.affiliates'), href: `/${lang}/affiliates/` },
      { label: partner.name, href: pathOf({ kind: 'affiliate', slug }, lang) },
    ),
    ogType: 'website',
    structuredData: [],
    blocks: [
      {
        type: 'affiliateHeader',
        title: t('affiliate.header.title', values),
        subtitle: t('affiliate.header.subtitle', values),
        partner: partner.name,
        kind: t(`affiliate.kind.${partner.kind}`),
        cta: {
          label: t('common.signupCta'),
          href: `${ctx.tradeUrl}/signup?partner=${partner.slug}`,
        },
      },
      {
        type: 'features',
        title: t('home.features.title'),
        items: items(ctx, 'home.features', [
          ['fees', 'PercentIcon'],
          ['assets', 'BitcoinIcon'],
          ['payments', 'EuroIcon'],
        ]),
      },
      { type: 'richText', html: `<p>${escapeHtml(t('affiliate.offer.terms'))}</p>` },
      disclaimer(ctx),
    ],
  }
}

function legalView(
  ctx: SiteContext,
  content: ContentIndex,
  key: Extract<PageKey, { kind: 'legal' }>,
): View {
  const { t, lang } = ctx
  const doc = content.legal.find((entry) => entry.slug === key.slug && entry.lang === lang)
  if (doc === undefined) throw new Error(`legal text ${key.slug} missing in ${lang}`)
  return {
    template: 'legal',
    title: doc.title,
    description: doc.description,
    crumbs: crumbs(ctx, { label: doc.title, href: pathOf(key, lang) }),
    ogType: 'website',
    structuredData: [],
    article: { published: doc.updated },
    blocks: [
      {
        type: 'pageHeading',
        title: doc.title,
        intro: t('common.updated', { date: formatDate(lang, doc.updated) }),
      },
      { type: 'richText', html: doc.html },
    ],
  }
}

function blogListView(
  ctx: SiteContext,
  content: ContentIndex,
  key: Extract<PageKey, { kind: 'blogList' }>,
): View {
  const { t, lang } = ctx
  const posts = postsOf(content, lang).filter(
    (post) => key.topic === undefined || post.topic === key.topic,
  )
  const topicName = key.topic === undefined ? undefined : t(`blog.topic.${key.topic}`)
  const listCrumb = { label: t('blog.title'), href: pathOf({ kind: 'blogList' }, lang) }
  return {
    template: 'blogList',
    title: topicName === undefined ? t('blog.title') : t('blog.topicTitle', { topic: topicName }),
    description:
      key.topic === undefined ? t('blog.description') : t(`blog.topicDescription.${key.topic}`),
    crumbs:
      key.topic === undefined
        ? crumbs(ctx, listCrumb)
        : crumbs(ctx, listCrumb, { label: topicName ?? '', href: pathOf(key, lang) }),
    ogType: 'website',
    structuredData: [],
    blocks: [
      { type: 'pageHeading', title: topicName ?? t('blog.heading'), intro: t('blog.intro') },
      key.topic === undefined
        ? { type: 'topicFilter' }
        : { type: 'topicFilter', active: key.topic },
      { type: 'postList', posts: posts.map(summary), headingLevel: 2 },
    ],
  }
}

function blogView(ctx: SiteContext, content: ContentIndex, slug: string, siteUrl: string): View {
  const { t, lang } = ctx
  const post = content.posts.find((entry) => entry.slug === slug && entry.lang === lang)
  if (post === undefined) throw new Error(`blog post ${slug} missing in ${lang}`)
  const more = postsOf(content, lang)
    .filter((other) => other.slug !== slug && other.topic === post.topic)
    .concat(
      postsOf(content, lang).filter((other) => other.slug !== slug && other.topic !== post.topic),
    )
    .slice(0, 3)
    .map(summary)
  return {
    template: 'blog',
    title: post.title,
    description: post.description,
    crumbs: crumbs(
      ctx,
      { label: t('blog.title'), href: pathOf({ kind: 'blogList' }, lang) },
      { label: post.title, href: pathOf({ kind: 'blog', slug }, lang) },
    ),
    ogType: 'article',
    article: { published: post.date },
    structuredData: [blogPosting(post, siteUrl)],
    blocks: [{ type: 'richText', html: post.html }, latestPosts(ctx, more), disclaimer(ctx)],
  }
}

function blogPosting(post: BlogPost, siteUrl: string): object {
  return {
    '@context': 'https://schema.org',
    '@type': 'BlogPosting',
    headline: post.title,
    description: post.description,
    datePublished: post.date,
    inLanguage: post.lang,
    url: `${siteUrl}${pathOf({ kind: 'blog', slug: post.slug }, post.lang)}`,
    author: { '@type': 'Organization', name: brandFacts.companyName },
    publisher: { '@type': 'Organization', name: brandFacts.companyName },
  }
}

function maintenanceView(ctx: SiteContext, content: ContentIndex): View {
  const { t, lang } = ctx
  const key: PageKey = { kind: 'maintenance' }
  const when = maintenanceWindowText(lang)
  const announcementSlug = scheduledMaintenance.announcementSlug
  const announcement = content.posts.some((post) => post.slug === announcementSlug)
  return {
    template: 'default',
    title: t('maintenance.title'),
    description: t('maintenance.description'),
    crumbs: crumbs(ctx, { label: t('maintenance.title'), href: pathOf(key, lang) }),
    ogType: 'website',
    structuredData: [],
    blocks: [
      { type: 'pageHeading', title: t('maintenance.heading') },
      {
        type: 'richText',
        html:
          `<p>${escapeHtml(t('maintenance.text', when))}</p>` +
          (announcement
            ? `<p><a href="${pathOf({ kind: 'blog', slug: announcementSlug }, lang)}">${escapeHtml(t('maintenance.more'))}</a></p>`
            : ''),
      },
      {
        type: 'richText',
        html: `<p><a href="/${lang}/status/">${escapeHtml(t('nav.status'))}</a></p>`,
      },
    ],
  }
}

function notFoundView(ctx: SiteContext): View {
  const { t, lang } = ctx
  return {
    template: 'notFound',
    title: t('notFound.title'),
    description: t('notFound.description'),
    crumbs: [],
    ogType: 'website',
    structuredData: [],
    blocks: [
      { type: 'pageHeading', title: t('notFound.heading'), intro: t('notFound.text') },
      {
        type: 'brands',
        title: t('notFound.home'),
        items: [
          { label: t('breadcrumb.home'), href: `/${lang}/` },
          { label: t('nav.markets'), href: `/${lang}/markets/` },
          { label: t('nav.fees'), href: `/${lang}/fees/` },
          { label: t('nav.blog'), href: `/${lang}/blog/` },
        ],
      },
    ],
  }
}

export function buildView(
  route: Route,
  content: ContentIndex,
  ctx: SiteContext,
  siteUrl: string,
): View {
  const key = route.key
  switch (key.kind) {
    case 'home':
      return homeView(ctx, content)
    case 'default':
      return defaultView(ctx, key)
    case 'legal':
      return legalView(ctx, content, key)
    case 'blogList':
      return blogListView(ctx, content, key)
    case 'blog':
      return blogView(ctx, content, key.slug, siteUrl)
    case 'affiliate':
      return affiliateView(ctx, key.slug)
    case 'buy':
      return buyView(ctx, key.slug)
    case 'asset':
      return assetView(ctx, content, key.slug)
    case 'price':
      return priceView(ctx, content, key.slug)
    case 'news':
      return newsView(ctx, content, key.slug)
    case 'maintenance':
      return maintenanceView(ctx, content)
    case 'notFound':
      return notFoundView(ctx)
  }
}

export { blogTopics }
