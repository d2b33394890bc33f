// Cookie preferences (spec §4): three categories (essential and functional, analytical,
// marketing); a save button stores the choice. Essential cookies cannot be switched off.

import { type ReactElement, useEffect, useId, useState } from 'react'

export type CookieSettingsLabels = {
  essentialTitle: string
  essentialText: string
  analyticalTitle: string
  analyticalText: string
  marketingTitle: string
  marketingText: string
  alwaysOn: string
  save: string
  saved: string
}

export type CookiePreferences = { essential: true; analytical: boolean; marketing: boolean }

export const cookiePreferencesKey = 'cookie-preferences'

export function readPreferences(storage: Pick<Storage, 'getItem'>): CookiePreferences {
  try {
    const stored = JSON.parse(
      storage.getItem(cookiePreferencesKey) ?? 'null',
    ) as Partial<CookiePreferences> | null
    return {
      essential: true,
      analytical: stored?.analytical === true,
      marketing: stored?.marketing === true,
    }
  } catch {
    return { essential: true, analytical: false, marketing: false }
  }
}

export function CookieSettings({ labels }: { labels: CookieSettingsLabels }): ReactElement {
  const [preferences, setPreferences] = useState<CookiePreferences>({
    essential: true,
    analytical: false,
    marketing: false,
  })
  const [status, setStatus] = useState('')
  const ids = { essential: useId(), analytical: useId(), marketing: useId() }

  useEffect(() => {
    setPreferences(readPreferences(window.localStorage))
  }, [])

  const categories = [
    { id: 'essential', title: labels.essentialTitle, text: labels.essentialText },
    { id: 'analytical', title: labels.analyticalTitle, text: labels.analyticalText },
    { id: 'marketing', title: labels.marketingTitle, text: labels.marketingText },
  ] as const

  return (
    <form
      className="cookie-settings"
      onSubmit={(event) => {
        event.preventDefault()
        window.localStorage.setItem(cookiePreferencesKey, JSON.stringify(preferences))
        setStatus(labels.saved)
      }}
    >
      <fieldset>
        {categories.map((category) => (
          <div key={category.id} className="cookie-category">
            <input
              id={ids[category.id]}
              type="checkbox"
              checked={preferences[category.id]}
              disabled={category.id === 'essential'}
              aria-describedby={`${ids[category.id]}-text`}
              onChange={(event) => {
                const checked = event.target.checked
                setStatus('')
                setPreferences((current) => ({
                  ...current,
                  [category.id]: checked,
                  essential: true,
                }))
              }}
            />
            <label htmlFor={ids[category.id]}>
              {category.title}
              {category.id === 'essential' ? (
                <span className="note"> ({labels.alwaysOn})</span>
              ) : null}
            </label>
            <p id={`${ids[category.id]}-text`}>{category.text}</p>
          </div>
        ))}
      </fieldset>
      <button type="submit" className="button button-default">
        {labels.save}
      </button>
      <p role="status" className="cookie-status">
        {status}
      </p>
    </form>
  )
}
