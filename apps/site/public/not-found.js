// Loaded by the 404 pages only: if the missed path is in the redirect table (or lacks its
// trailing slash), replace it with the target, keeping search string and hash.
;(async () => {
  const { pathname, search, hash } = window.location
  const path = /\/[^/.]+$/.test(pathname) ? `${pathname}/` : pathname
  try {
    const response = await fetch('/redirects.json', { headers: { Accept: 'application/json' } })
    if (!response.ok) return
    const table = await response.json()
    const target = table[path] ?? (path !== pathname ? path : undefined)
    if (typeof target === 'string' && target !== pathname)
      window.location.replace(`${target}${search}${hash}`)
  } catch {
    // No table, no redirect: the 404 page stays.
  }
})()
