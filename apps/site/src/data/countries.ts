// Where Polder serves customers: the European Economic Area, from this site, except the countries
// whose residents are served through a separate local site under that country's regulator.

/** The European Economic Area: the EU 27 plus Iceland, Liechtenstein and Norway (ISO 3166). */
export const eeaCountries = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IS',
  'IT',
  'LI',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'NO',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
] as const

export type EeaCountry = (typeof eeaCountries)[number]

/**
 * Countries served through a separate local site rather than this one. Belgium: its regulator
 * (the FSMA) requires its own crypto-asset warning and rules for Belgian residents.
 */
export const localSiteCountries: readonly EeaCountry[] = ['BE']
