const compactAtMin = 1024

/**
 * One book side's changes since the last published batch, and what that batch published.
 *
 * Marking a change only appends its price to `prices` (a price may appear more than once; the
 * fast book's level stamp keeps repeats rare), so a command looks nothing up; the published size
 * of each changed price is looked up when the batch is built (`published`, updated then).
 */
export class DirtyLevels {
  /** Prices changed since the last batch, first changes first, possibly repeated. */
  private readonly prices: number[] = []
  /** price → size at the last published batch (absent: 0). */
  readonly published = new Map<number, number>()
  private compactAt = compactAtMin

  mark(price: number): void {
    this.prices.push(price)
    if (this.prices.length > this.compactAt) {
      const unique = this.unique()
      this.prices.length = 0
      for (const each of unique) this.prices.push(each)
      this.compactAt = Math.max(compactAtMin, 2 * unique.length)
    }
  }

  /** Whether a price changed since the last batch (its size may have come back since). */
  get changed(): boolean {
    return this.prices.length > 0
  }

  /** The changed prices, each once, in the order of their first change. */
  unique(): number[] {
    const seen = new Set<number>()
    const unique: number[] = []
    for (const price of this.prices) {
      if (!seen.has(price)) {
        seen.add(price)
        unique.push(price)
      }
    }
    return unique
  }

  /** The published size of a price. */
  publishedSize(price: number): number {
    return this.published.get(price) ?? 0
  }

  /** Records a published size (0 removes the level). */
  publish(price: number, size: number): void {
    if (size === 0) this.published.delete(price)
    else this.published.set(price, size)
  }

  /** Forgets the changes (after a batch). */
  clear(): void {
    this.prices.length = 0
    this.compactAt = compactAtMin
  }
}
