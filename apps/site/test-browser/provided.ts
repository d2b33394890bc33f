// What tests/browser/site.setup.ts provides to the site's browser tests.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The built site (a temporary folder). */
    siteDir: string
    siteBuildSeconds: number
  }
}

export {}
