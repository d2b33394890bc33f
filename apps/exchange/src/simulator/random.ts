// Seeded randomness for everything the simulator invents (live price walks, the backfilled
// history): the same seed must give the same market, run after run.

/** mulberry32: small, fast, seedable; the walk must be reproducible from the seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** A standard normal draw (Box-Muller) from a uniform source. */
export function standardNormal(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}

/** Standard normal draws, two per Box-Muller transform: half the logarithms of `standardNormal`. */
export function normalSource(random: () => number): () => number {
  let spare: number | undefined
  return () => {
    if (spare !== undefined) {
      const draw = spare
      spare = undefined
      return draw
    }
    const radius = Math.sqrt(-2 * Math.log(Math.max(random(), Number.EPSILON)))
    const angle = 2 * Math.PI * random()
    spare = radius * Math.sin(angle)
    return radius * Math.cos(angle)
  }
}
