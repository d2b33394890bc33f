import { brandFacts } from '@polder/catalogue'
import { formatNumber } from '@polder/i18n'
import type { ReactElement } from 'react'
import { useSite } from '../../lib/context.tsx'

export function AboutFacts(): ReactElement {
  const { t } = useSite()
  const { address, registrations } = brandFacts
  const rows: [string, string][] = [
    [t('about.facts.name'), brandFacts.companyName],
    [t('about.facts.address'), `${address.street}, ${address.postcode} ${address.city}`],
    [t('about.facts.founded'), String(brandFacts.launchYear)],
    [
      t('about.facts.registration'),
      t('about.facts.registrationValue', {
        centralBank: registrations.centralBank.name,
        register: t('about.facts.register'),
        chamber: registrations.chamberOfCommerce.name,
      }),
    ],
    [t('about.facts.kvk'), registrations.chamberOfCommerce.number],
  ]
  return (
    <dl className="facts">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}

export function CustomerReviews(): ReactElement {
  const { t, lang } = useSite()
  const { score, outOf, reviewsMin } = brandFacts.rating
  const stars = Math.round((score / outOf) * 5)
  return (
    <div className="reviews">
      <p className="reviews-score">
        <span aria-hidden="true" className="stars">
          {'★'.repeat(stars)}
          {'☆'.repeat(5 - stars)}
        </span>{' '}
        <span className="reviews-number">
          {formatNumber(lang, score)}/{formatNumber(lang, outOf)}
        </span>
        <span className="visually-hidden">{t('reviews.label', { rating: score, outOf })}</span>
      </p>
      <p>{t('reviews.text', { reviews: reviewsMin })}</p>
    </div>
  )
}
