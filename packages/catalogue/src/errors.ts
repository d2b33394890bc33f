// Library errors of @polder/catalogue: named classes with a code (STYLE habit 5).

/** Broken catalogue data. `issues` lists every problem found, not just the first. */
export class CatalogueError extends Error {
  override readonly name = 'CatalogueError'
  readonly code = 'catalogueInvalid'
  readonly issues: readonly string[]

  constructor(issues: readonly string[], options?: ErrorOptions) {
    super(
      `invalid catalogue: ${issues.slice(0, 5).join('; ')}${issues.length > 5 ? '; …' : ''}`,
      options,
    )
    this.issues = issues
  }
}
