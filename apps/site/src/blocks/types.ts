// The page-building blocks of spec §2, as data. src/lib/views.ts composes them for each route (one
// view builder per template kind); <Blocks> renders them. Texts are already translated when a
// block is built.

import type { IconName } from '../components/Icon.tsx'
import type { BlogTopic } from '../data/blogTopics.ts'
import type { PostSummary } from '../lib/content.ts'

export type Link = { label: string; href: string }
export type Item = { icon?: IconName; title: string; text: string; href?: string }

export type CustomComponent =
  | 'withdrawalFeesTable'
  | 'tradingFeesTable'
  | 'tradingLimitsTable'
  | 'paymentMethodsTable'
  | 'about'
  | 'customerReviews'
  | 'marketsTable'
  | 'top5MarketsTable'
  | 'cookieSettings'
  | 'countriesTable'
  | 'statusTable'

export type Block =
  | {
      type: 'affiliateHeader'
      title: string
      subtitle: string
      partner: string
      kind: string
      cta: Link
    }
  | { type: 'hero'; title: string; subtitle: string; cta?: Link; secondary?: Link; icon?: IconName }
  | { type: 'faq'; title: string; items: { question: string; answer: string }[]; support?: Link }
  | { type: 'features'; title: string; items: Item[] }
  | { type: 'metrics'; title: string; items: { value: string; label: string }[] }
  | { type: 'steps'; title: string; items: Item[] }
  | { type: 'testimonial'; title: string; items: { quote: string; name: string; role: string }[] }
  | { type: 'pageHeading'; title: string; intro?: string }
  | { type: 'richText'; title?: string; html: string }
  | { type: 'custom'; component: CustomComponent; title?: string }
  | { type: 'callToAction'; title: string; text: string; cta: Link }
  | { type: 'dataTable'; title?: string; caption: string; columns: string[]; rows: string[][] }
  | { type: 'disclaimer'; title: string; text: string; link?: Link }
  | { type: 'blurbFeatures'; title: string; items: Item[] }
  | { type: 'blurbList'; title: string; items: Item[] }
  | { type: 'featuresList'; title: string; items: Item[] }
  | { type: 'brands'; title: string; items: Link[] }
  // Site-specific blocks of the asset, price, news and blog templates.
  | { type: 'postList'; title?: string; posts: PostSummary[]; headingLevel?: 2 | 3 }
  | { type: 'topicFilter'; active?: BlogTopic }
  | { type: 'assetNav'; slug: string }
  | { type: 'priceFigures'; symbol: string; name: string }
  | { type: 'priceChart'; symbol: string; name: string }
  | {
      type: 'assetList'
      title: string
      slugs: string[]
      /** Label the prices with their time, on pages without another price block that does. */
      asOf?: boolean
    }
