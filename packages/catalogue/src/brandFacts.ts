// Business facts about Polder that the product cannot compute from its own data. Every page and
// screen that states one of them reads it from here, so a change is made once. Facts the
// product can compute (asset count, highest trading fee, payment method count, highest staking
// yield) are computed by `productFacts` instead.

export const brandFacts = {
  companyName: 'Polder Exchange B.V.',
  brandName: 'Polder',
  /** The name the company traded under before it became Polder. */
  predecessorBrand: { name: 'Dijkwerk', slug: 'dijkwerk', from: 2018, until: 2021 },
  launchYear: 2018,
  usersMin: 1_000_000,
  totalVolumeEurMin: 100_000_000_000,
  /** Shown in English only, as marketing decided. */
  volume30dEurMillions: 10_000,
  rating: { score: 8.4, outOf: 10, reviewsMin: 12_500 },
  mobileApp: true,
  registrations: {
    // The register's English name; the site shows it translated (message about.facts.register).
    centralBank: { name: 'De Nederlandsche Bank', register: 'Crypto service provider register' },
    chamberOfCommerce: { name: 'Kamer van Koophandel', number: '71234567' },
  },
  address: { street: 'Herengracht 100', postcode: '1015 BS', city: 'Amsterdam', country: 'NL' },
  vatNumber: 'NL858812345B01',
  emails: {
    support: 'support@polder.example',
    press: 'press@polder.example',
    security: 'security@polder.example',
    complaints: 'complaints@polder.example',
    partners: 'partners@polder.example',
  },
} as const

export type BrandFacts = typeof brandFacts
