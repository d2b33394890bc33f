import type { z } from 'zod'
import { type ParameterLocation, ValidationError } from './errors/ValidationError.ts'

export type ParseOptions = {
  /** Where the parameters came from; picks the unknown-parameter code (200/201/204). */
  location?: ParameterLocation
}

export type SafeParseResult<Output> =
  | { success: true; data: Output }
  | { success: false; error: ValidationError }

/**
 * Validate a wire message at the edge. On failure the error names the field
 * (`amount: expected a decimal string`) and carries the protocol errorCode, HTTP status and
 * error body a server answers with.
 */
export function safeParse<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  options: ParseOptions = {},
): SafeParseResult<z.output<Schema>> {
  const result = schema.safeParse(input)
  if (result.success) return { success: true, data: result.data }
  return {
    success: false,
    error: ValidationError.fromZodError(result.error, input, options.location),
  }
}

/** Like `safeParse`, but throws the `ValidationError`. */
export function parse<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  options: ParseOptions = {},
): z.output<Schema> {
  const result = safeParse(schema, input, options)
  if (!result.success) throw result.error
  return result.data
}
