// @vitest-environment happy-dom
import { expect, test } from 'vitest'
import { createThemeStore, documentThemeRoot } from '../src/index.ts'

// Spec §4: the DOM side of the theme, in a browser-like environment.

test('dark adds a dark class to the document root; stored in localStorage under theme', () => {
  localStorage.clear()
  const store = createThemeStore({ storage: localStorage, root: documentThemeRoot() })
  store.getState().setTheme('dark')
  expect(document.documentElement.classList.contains('dark')).toBe(true)
  expect(localStorage.getItem('theme')).toBe('dark')
  store.getState().toggleTheme()
  expect(document.documentElement.classList.contains('dark')).toBe(false)
  expect(localStorage.getItem('theme')).toBe('light')
})
