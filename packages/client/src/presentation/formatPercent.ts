// Spec §5: percent in en-GB, at most 2 fraction digits, the sign shown except for zero. The value
// is already in percent ('1.5' → '+1.5%'). Decimal strings are formatted exactly (Intl accepts
// them since ES2023), numbers as they are.

const percentFormat = new Intl.NumberFormat('en-GB', {
  maximumFractionDigits: 2,
  signDisplay: 'exceptZero',
})

export function formatPercent(value: number | string): string {
  return `${percentFormat.format(value as number)}%`
}
