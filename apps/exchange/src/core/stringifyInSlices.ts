// JSON.stringify for a large value without holding the event loop: the value is written a piece
// at a time, and after every `sliceMs` of work the writer rests `restMs` while the loop runs
// (requests, commits, market data), so that it never takes more than its share of the CPU. Containers near the top, and long arrays at any depth, are
// walked here; what is below them (an order, a fill, a candle series) is stringified whole. The
// output is exactly JSON.stringify(value).
//
// The value must not change while it is written: callers pass a snapshot whose containers
// were copied and whose leaves are never mutated.

/** Already-serialised JSON to put into the output as it is (e.g. a part stringified at capture). */
export class RawJson {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }

  /** JSON.stringify writes the same text (through the value it stands for). */
  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/**
 * A long array captured now and built an item at a time when it is written: the capture only
 * keeps references (to values that later commands replace but never change), so it costs no
 * more than copying them into a few flat arrays, and the garbage of building the items comes
 * slice by slice. Iterating it, or JSON.stringify (toJSON), gives the items as of the capture.
 */
export class ArrayView<T> implements Iterable<T> {
  readonly length: number
  readonly #itemAt: (index: number) => T
  constructor(length: number, itemAt: (index: number) => T) {
    this.length = length
    this.#itemAt = itemAt
  }

  at(index: number): T {
    return this.#itemAt(index)
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let index = 0; index < this.length; index += 1) yield this.#itemAt(index)
  }

  toJSON(): T[] {
    return [...this]
  }
}

/** Arrays and objects at most this deep are walked; below, only long arrays. */
const walkedDepthMax = 5
/** Arrays longer than this are walked down to `longArrayDepthMax`. */
const longArrayLength = 32
const longArrayDepthMax = 12
/** Pieces are joined into chunks of about this many characters as they are written. */
const chunkCharsMin = 256 * 1024
/** How many pieces are written between looks at the clock. */
const piecesPerClockCheck = 64

export async function stringifyInSlices(
  value: unknown,
  sliceMs = 2,
  restMs = sliceMs,
): Promise<string> {
  return (await stringifyInChunks(value, sliceMs, restMs)).join('')
}

/**
 * The same text as `stringifyInSlices`, as chunks of about 256 KiB: a writer that streams them
 * never needs the whole text as one string. (Each chunk is one flat string, large enough to be
 * allocated outside the young generation: a large state written as many small strings that all
 * stay alive until the end made every minor GC copy them, measured at 30-40 ms pauses.)
 */
/*
 * With `restMs` the writer takes at most sliceMs / (sliceMs + restMs) of the event loop while the
 * exchange is busy. Yielding for one turn only (setImmediate, what `restMs` 0 does) let a
 * snapshot of 70,000 orders take most of the loop for a second, and at 5,000 orders/s requests
 * queued behind it.
 */
export async function stringifyInChunks(
  value: unknown,
  sliceMs = 2,
  restMs = sliceMs,
): Promise<string[]> {
  const out = new ChunkWriter()
  const steps = write(value, 0, out)
  let sliceStart = performance.now()
  let pieces = 0
  while (!steps.next().done) {
    pieces += 1
    if (pieces % piecesPerClockCheck !== 0 || performance.now() - sliceStart < sliceMs) continue
    await new Promise<void>((resolve) =>
      restMs > 0 ? setTimeout(resolve, restMs) : setImmediate(resolve),
    )
    sliceStart = performance.now()
  }
  return out.finish()
}

/** Writes `item`, yielding after each piece stringified whole (a place where it may pause). */
function* write(item: unknown, depth: number, out: ChunkWriter): Generator<void, void, void> {
  if (item instanceof RawJson) {
    out.push(item.text)
    return
  }
  if (item instanceof ArrayView) {
    out.push('[')
    for (let index = 0; index < item.length; index += 1) {
      if (index > 0) out.push(',')
      // As JSON.stringify does for the array toJSON returns: undefined and functions are null.
      yield* write(item.at(index) ?? null, depth + 1, out)
    }
    out.push(']')
    return
  }
  if (Array.isArray(item)) {
    if (depth < walkedDepthMax || (item.length > longArrayLength && depth < longArrayDepthMax)) {
      out.push('[')
      for (let index = 0; index < item.length; index += 1) {
        if (index > 0) out.push(',')
        yield* write(item[index], depth + 1, out)
      }
      out.push(']')
      return
    }
  } else if (depth < walkedDepthMax && isPlainObject(item)) {
    out.push('{')
    let first = true
    for (const [key, field] of Object.entries(item)) {
      // As JSON.stringify does: fields without a JSON form are left out.
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue
      out.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`)
      first = false
      yield* write(field, depth + 1, out)
    }
    out.push('}')
    return
  }
  // As JSON.stringify does, what has no JSON form is null in an array (objects skip it above).
  out.push(JSON.stringify(item) ?? 'null')
  yield
}

class ChunkWriter {
  readonly #chunks: string[] = []
  #parts: string[] = []
  #chars = 0

  push(text: string): void {
    this.#parts.push(text)
    this.#chars += text.length
    if (this.#chars < chunkCharsMin) return
    this.#chunks.push(this.#parts.join(''))
    this.#parts = []
    this.#chars = 0
  }

  finish(): string[] {
    if (this.#parts.length > 0) this.#chunks.push(this.#parts.join(''))
    this.#parts = []
    return this.#chunks
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
