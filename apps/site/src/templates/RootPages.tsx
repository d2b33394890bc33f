// The pages outside the languages: the root (which offers the six languages and is the hreflang
// x-default) and the root 404.html and 500.html.

import { localeNames, locales, translator } from '@polder/i18n'
import type { ReactElement } from 'react'
import { LogoIcon } from '../components/Icon.tsx'

function LanguageList(): ReactElement {
  return (
    <ul className="language-list">
      {locales.map((lang) => (
        <li key={lang}>
          <a href={`/${lang}/`} hrefLang={lang} lang={lang}>
            {localeNames[lang]}
          </a>
        </li>
      ))}
    </ul>
  )
}

export function RootPage({ kind }: { kind: 'root' | 'notFound' | 'serverError' }): ReactElement {
  const t = translator('en')
  const heading =
    kind === 'root'
      ? t('root.heading')
      : kind === 'notFound'
        ? t('notFound.heading')
        : t('serverError.title')
  return (
    <main id="main" className="root-page">
      <p className="logo">
        <LogoIcon width={40} height={40} />
        <span>{t('brand.name')}</span>
      </p>
      <h1>{heading}</h1>
      {kind === 'notFound' ? <p>{t('notFound.text')}</p> : null}
      {kind === 'serverError' ? <p>{t('serverError.text')}</p> : null}
      <LanguageList />
    </main>
  )
}
