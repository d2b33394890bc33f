import { createStore, type StoreApi } from 'zustand/vanilla'

// Spec §4: the theme is undefined until set (from storage or by the user), the user toggles it,
// it is stored in local storage under `theme`, and dark adds the `dark` class to the document
// root. The DOM and the storage sit behind small adapters so the store runs in Node.

export type ThemeName = 'light' | 'dark'

export const themeStorageKey = 'theme'
export const darkClassName = 'dark'

/** The part of `localStorage` used. */
export type ThemeStorage = {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/** Applies the theme to the page. */
export type ThemeRoot = { setDark(dark: boolean): void }

/** The browser's document root: toggles the `dark` class on `<html>`. */
export function documentThemeRoot(document: Document = globalThis.document): ThemeRoot {
  return {
    setDark: (dark) => document.documentElement.classList.toggle(darkClassName, dark),
  }
}

export type ThemeState = {
  readonly theme: ThemeName | undefined
  setTheme(theme: ThemeName): void
  toggleTheme(): void
  /** Read the stored theme, if any (call once at start). */
  hydrate(): void
}

export type ThemeStore = StoreApi<ThemeState>

function isThemeName(value: unknown): value is ThemeName {
  return value === 'light' || value === 'dark'
}

export function createThemeStore(options: { storage: ThemeStorage; root: ThemeRoot }): ThemeStore {
  const { storage, root } = options
  return createStore<ThemeState>()((set, get) => {
    const apply = (theme: ThemeName, persist: boolean): void => {
      set({ theme })
      root.setDark(theme === 'dark')
      if (persist) storage.setItem(themeStorageKey, theme)
    }
    return {
      theme: undefined,
      setTheme: (theme) => apply(theme, true),
      toggleTheme: () => apply(get().theme === 'dark' ? 'light' : 'dark', true),
      hydrate: () => {
        const stored = storage.getItem(themeStorageKey)
        if (isThemeName(stored)) apply(stored, false)
      },
    }
  })
}
