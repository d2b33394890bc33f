// The affiliate partners, one landing page each (`/{lang}/affiliate/{slug}/`). Partners are
// publishers, creators, educators, communities and tools; their audience trades its first
// `feeFreeVolumeEur` euros without trading fees. Names are the partners' own, never translated.

export type AffiliateKind = 'media' | 'video' | 'podcast' | 'education' | 'community' | 'tools'

export type AffiliatePartner = {
  /** URL segment: lowercase ASCII, digits and hyphens. */
  slug: string
  name: string
  kind: AffiliateKind
  /** Euro volume traded without fees during the first 30 days after signing up. */
  feeFreeVolumeEur: number
}

export const affiliatePartners: readonly AffiliatePartner[] = [
  { slug: 'kanaal-crypto', name: 'Kanaal Crypto', kind: 'media', feeFreeVolumeEur: 1000 },
  {
    slug: 'blockchain-bulletin',
    name: 'Blockchain Bulletin',
    kind: 'media',
    feeFreeVolumeEur: 500,
  },
  { slug: 'munt-and-markt', name: 'Munt & Markt', kind: 'media', feeFreeVolumeEur: 1000 },
  { slug: 'krypto-kompass', name: 'Krypto Kompass', kind: 'media', feeFreeVolumeEur: 500 },
  { slug: 'cripto-diario', name: 'Cripto Diario', kind: 'media', feeFreeVolumeEur: 500 },
  {
    slug: 'le-journal-des-jetons',
    name: 'Le Journal des Jetons',
    kind: 'media',
    feeFreeVolumeEur: 500,
  },
  { slug: 'notizie-catena', name: 'Notizie Catena', kind: 'media', feeFreeVolumeEur: 500 },
  { slug: 'ledger-letters', name: 'Ledger Letters', kind: 'media', feeFreeVolumeEur: 250 },
  { slug: 'satoshi-street', name: 'Satoshi Street', kind: 'media', feeFreeVolumeEur: 500 },
  { slug: 'token-tribune', name: 'Token Tribune', kind: 'media', feeFreeVolumeEur: 1000 },
  { slug: 'chartkijkers', name: 'Chartkijkers', kind: 'video', feeFreeVolumeEur: 1000 },
  { slug: 'bitbeeld', name: 'Bitbeeld', kind: 'video', feeFreeVolumeEur: 500 },
  {
    slug: 'die-wallet-werkstatt',
    name: 'Die Wallet-Werkstatt',
    kind: 'video',
    feeFreeVolumeEur: 500,
  },
  { slug: 'cripto-en-cinco', name: 'Cripto en Cinco', kind: 'video', feeFreeVolumeEur: 250 },
  { slug: 'crypto-croissant', name: 'Crypto Croissant', kind: 'video', feeFreeVolumeEur: 500 },
  { slug: 'blocco-per-blocco', name: 'Blocco per Blocco', kind: 'video', feeFreeVolumeEur: 250 },
  { slug: 'candle-club', name: 'Candle Club', kind: 'video', feeFreeVolumeEur: 500 },
  { slug: 'altcoin-atelier', name: 'Altcoin Atelier', kind: 'video', feeFreeVolumeEur: 500 },
  {
    slug: 'de-koersen-podcast',
    name: 'De Koersen Podcast',
    kind: 'podcast',
    feeFreeVolumeEur: 500,
  },
  { slug: 'hashrate-hour', name: 'Hashrate Hour', kind: 'podcast', feeFreeVolumeEur: 250 },
  {
    slug: 'le-podcast-du-bloc',
    name: 'Le Podcast du Bloc',
    kind: 'podcast',
    feeFreeVolumeEur: 250,
  },
  { slug: 'dezentral-gedacht', name: 'Dezentral Gedacht', kind: 'podcast', feeFreeVolumeEur: 500 },
  { slug: 'cripto-charla', name: 'Cripto Charla', kind: 'podcast', feeFreeVolumeEur: 250 },
  {
    slug: 'il-portafoglio-parlante',
    name: 'Il Portafoglio Parlante',
    kind: 'podcast',
    feeFreeVolumeEur: 250,
  },
  { slug: 'node-notes', name: 'Node Notes', kind: 'podcast', feeFreeVolumeEur: 250 },
  {
    slug: 'dijkstra-academie',
    name: 'Dijkstra Academie',
    kind: 'education',
    feeFreeVolumeEur: 1000,
  },
  { slug: 'krypto-grundkurs', name: 'Krypto-Grundkurs', kind: 'education', feeFreeVolumeEur: 500 },
  { slug: 'academia-cadena', name: 'Academia Cadena', kind: 'education', feeFreeVolumeEur: 500 },
  { slug: 'ecole-du-bitcoin', name: 'École du Bitcoin', kind: 'education', feeFreeVolumeEur: 500 },
  {
    slug: 'scuola-blockchain',
    name: 'Scuola Blockchain',
    kind: 'education',
    feeFreeVolumeEur: 500,
  },
  {
    slug: 'beleggen-begrijpen',
    name: 'Beleggen Begrijpen',
    kind: 'education',
    feeFreeVolumeEur: 1000,
  },
  {
    slug: 'finance-fundamentals',
    name: 'Finance Fundamentals',
    kind: 'education',
    feeFreeVolumeEur: 500,
  },
  { slug: 'wallet-wise', name: 'Wallet Wise', kind: 'education', feeFreeVolumeEur: 250 },
  { slug: 'noordzee-nodes', name: 'Noordzee Nodes', kind: 'community', feeFreeVolumeEur: 250 },
  {
    slug: 'grachten-crypto-club',
    name: 'Grachten Crypto Club',
    kind: 'community',
    feeFreeVolumeEur: 250,
  },
  {
    slug: 'berliner-block-stammtisch',
    name: 'Berliner Block Stammtisch',
    kind: 'community',
    feeFreeVolumeEur: 250,
  },
  { slug: 'madrid-mineros', name: 'Madrid Mineros', kind: 'community', feeFreeVolumeEur: 250 },
  {
    slug: 'lyon-ledger-meetup',
    name: 'Lyon Ledger Meetup',
    kind: 'community',
    feeFreeVolumeEur: 250,
  },
  {
    slug: 'milano-crypto-circolo',
    name: 'Milano Crypto Circolo',
    kind: 'community',
    feeFreeVolumeEur: 250,
  },
  {
    slug: 'antwerpen-altcoiners',
    name: 'Antwerpen Altcoiners',
    kind: 'community',
    feeFreeVolumeEur: 250,
  },
  { slug: 'lisbon-layer-two', name: 'Lisbon Layer Two', kind: 'community', feeFreeVolumeEur: 250 },
  {
    slug: 'vienna-validators',
    name: 'Vienna Validators',
    kind: 'community',
    feeFreeVolumeEur: 250,
  },
  { slug: 'koersklok', name: 'Koersklok', kind: 'tools', feeFreeVolumeEur: 500 },
  { slug: 'portfolio-pilot', name: 'Portfolio Pilot', kind: 'tools', feeFreeVolumeEur: 500 },
  { slug: 'belasting-bot', name: 'Belasting Bot', kind: 'tools', feeFreeVolumeEur: 250 },
  { slug: 'steuer-scout', name: 'Steuer Scout', kind: 'tools', feeFreeVolumeEur: 250 },
  {
    slug: 'impots-crypto-facile',
    name: 'Impots Crypto Facile',
    kind: 'tools',
    feeFreeVolumeEur: 250,
  },
  { slug: 'cartera-clara', name: 'Cartera Clara', kind: 'tools', feeFreeVolumeEur: 250 },
  { slug: 'conto-chiaro', name: 'Conto Chiaro', kind: 'tools', feeFreeVolumeEur: 250 },
  { slug: 'rebalance-radar', name: 'Rebalance Radar', kind: 'tools', feeFreeVolumeEur: 500 },
]
