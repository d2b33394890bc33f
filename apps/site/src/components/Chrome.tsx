// The page chrome: skip link, header with navigation and language switcher, footer with legal
// links and the cookie-settings link. Plain links: no JavaScript needed to navigate.

import { brandFacts } from '@polder/catalogue'
import { localeNames, locales } from '@polder/i18n'
import type { ReactElement } from 'react'
import { useSite } from '../lib/context.tsx'
import { pathOf } from '../lib/routes.ts'
import { LogoIcon } from './Icon.tsx'

export function SkipLink(): ReactElement {
  const { t } = useSite()
  return (
    <a className="skip-link" href="#main">
      {t('skip.toMain')}
    </a>
  )
}

export function LanguageSwitcher(): ReactElement {
  const { t, lang, route } = useSite()
  return (
    <details className="language-switcher">
      <summary>
        <span className="visually-hidden">{t('nav.language')}: </span>
        {lang.toUpperCase()}
      </summary>
      <ul>
        {locales.map((other) => (
          <li key={other}>
            <a
              href={pathOf(route.key, other)}
              hrefLang={other}
              lang={other}
              aria-current={other === lang ? 'true' : undefined}
            >
              {localeNames[other]}
            </a>
          </li>
        ))}
      </ul>
    </details>
  )
}

export function SiteHeader(): ReactElement {
  const { t, lang, tradeUrl } = useSite()
  const link = (slug: string): string => `/${lang}/${slug}/`
  return (
    <header className="site-header">
      <a className="logo" href={`/${lang}/`}>
        <LogoIcon width={28} height={28} />
        <span>{t('brand.name')}</span>
        <span className="visually-hidden"> – {t('nav.home')}</span>
      </a>
      <nav aria-label={t('nav.label')}>
        <ul className="nav-list">
          <li>
            <a href={link('markets')}>{t('nav.exchange')}</a>
          </li>
          <li>
            <a href={link('fees')}>{t('nav.fees')}</a>
          </li>
          <li>
            <a href={link('security')}>{t('nav.security')}</a>
          </li>
          <li>
            <a href={link('enterprise')}>{t('nav.enterprise')}</a>
          </li>
          <li>
            <a href={link('about')}>{t('nav.aboutUs')}</a>
          </li>
        </ul>
      </nav>
      <div className="header-actions">
        <LanguageSwitcher />
        <a className="button button-ghost" href={`${tradeUrl}/login`}>
          {t('nav.login')}
        </a>
        <a className="button button-default" href={`${tradeUrl}/signup`}>
          {t('nav.signup')}
        </a>
      </div>
    </header>
  )
}

export function SiteFooter(): ReactElement {
  const { t, lang } = useSite()
  const link = (slug: string): string => `/${lang}/${slug}/`
  const groups: { title: string; links: [string, string][] }[] = [
    {
      title: t('nav.exchange'),
      links: [
        [t('nav.markets'), link('markets')],
        [t('nav.fees'), link('fees')],
        [t('nav.status'), link('status')],
        [t('nav.security'), link('security')],
      ],
    },
    {
      title: t('nav.solutions'),
      links: [
        [t('nav.enterprise'), link('enterprise')],
        [t('nav.affiliates'), link('affiliates')],
      ],
    },
    {
      title: t('nav.company'),
      links: [
        [t('nav.about'), link('about')],
        [t('nav.careers'), link('careers')],
        [t('nav.press'), link('press')],
        [t('nav.blog'), link('blog')],
      ],
    },
    {
      title: t('nav.support'),
      links: [
        [t('nav.support'), `mailto:${brandFacts.emails.support}`],
        [t('countries.heading'), link('countries')],
        [t('legal.complaints'), link('complaints')],
        [t('legal.responsible-disclosure'), link('responsible-disclosure')],
      ],
    },
    {
      title: t('footer.legal'),
      links: [
        [t('legal.terms'), link('terms')],
        [t('legal.privacy'), link('privacy')],
        [t('legal.cookie-policy'), link('cookie-policy')],
        [t('footer.cookieSettings'), link('cookie-settings')],
        [t('legal.risk-disclosure'), link('risk-disclosure')],
        [t('legal.staking-risks'), link('staking-risks')],
        [t('legal.lending-risks'), link('lending-risks')],
        [t('legal.trading-rules'), link('trading-rules')],
        [t('legal.developer-agreement'), link('developer-agreement')],
        [t('legal.imprint'), link('imprint')],
      ],
    },
  ]
  return (
    <footer className="site-footer">
      <div className="footer-groups">
        {groups.map((group) => (
          <nav key={group.title} aria-label={group.title}>
            <h2>{group.title}</h2>
            <ul>
              {group.links.map(([label, href]) => (
                <li key={href}>
                  <a href={href}>{label}</a>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <p className="footer-risk">{t('footer.riskWarning')}</p>
      <p className="footer-registration">{t('footer.registration')}</p>
      <p className="footer-copyright">
        {t('footer.copyright', { year: String(new Date().getUTCFullYear()) })} ·{' '}
        <a href={link(brandFacts.predecessorBrand.slug)}>{t('footer.predecessor')}</a>
      </p>
    </footer>
  )
}

export type Crumb = { label: string; href: string }

export function Breadcrumbs({ items }: { items: Crumb[] }): ReactElement | null {
  const { t } = useSite()
  if (items.length < 2) return null
  return (
    <nav aria-label={t('breadcrumb.label')} className="breadcrumbs">
      <ol>
        {items.map((item, index) => (
          <li key={item.href}>
            {index === items.length - 1 ? (
              <span aria-current="page">{item.label}</span>
            ) : (
              <a href={item.href}>{item.label}</a>
            )}
          </li>
        ))}
      </ol>
    </nav>
  )
}
