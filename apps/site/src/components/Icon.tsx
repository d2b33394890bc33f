// The spec's icon names (content enumeration, spec §3) mapped to Lucide icons, plus the two icons
// Lucide has no equivalent for, drawn here: the Polder logo and TieIcon. Icons are decorative
// (aria-hidden); the text next to them carries the meaning.

import {
  ArrowDownToLine,
  ArrowLeftRight,
  Bitcoin,
  Building,
  ChartLine,
  ChartNoAxesColumn,
  CheckCheck,
  CircleCheck,
  ClipboardCheck,
  Euro,
  Eye,
  KeyRound,
  Layers2,
  LockKeyhole,
  type LucideIcon,
  MapPin,
  Percent,
  Power,
  Server,
  ShieldCheck,
  Smartphone,
  Split,
  SquareActivity,
  Tag,
  User,
  Zap,
} from 'lucide-react'
import type { ReactElement, SVGProps } from 'react'

type DrawnIcon = (props: SVGProps<SVGSVGElement>) => ReactElement

/** The product's logo mark: three polder fields under a rising line. */
export function LogoIcon(props: SVGProps<SVGSVGElement>): ReactElement {
  return (
    <svg viewBox="0 0 24 24" width={24} height={24} fill="none" aria-hidden="true" {...props}>
      <rect x="2" y="14" width="6" height="8" rx="1.5" fill="currentColor" opacity="0.55" />
      <rect x="9" y="10" width="6" height="12" rx="1.5" fill="currentColor" opacity="0.75" />
      <rect x="16" y="6" width="6" height="16" rx="1.5" fill="currentColor" />
      <path d="M2 9.5 9 5l5 2.5L22 2" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  )
}

/** A necktie, for business and enterprise content. */
export function TieIcon(props: SVGProps<SVGSVGElement>): ReactElement {
  return (
    <svg
      viewBox="0 0 24 24"
      width={24}
      height={24}
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      {...props}
    >
      <path d="M9 2h6l-1.5 4h-3z" />
      <path d="M10.5 6 8 17l4 5 4-5-2.5-11" />
    </svg>
  )
}

export const icons = {
  TagIcon: Tag,
  ShieldCheckIcon: ShieldCheck,
  ArrowLeftRightIcon: ArrowLeftRight,
  MapPinIcon: MapPin,
  DoubleCheckIcon: CheckCheck,
  BitcoinIcon: Bitcoin,
  EuroIcon: Euro,
  ZapIcon: Zap,
  CircleCheckIcon: CircleCheck,
  SmartphoneIcon: Smartphone,
  PercentIcon: Percent,
  LockKeyholeIcon: LockKeyhole,
  BarChart2Icon: ChartNoAxesColumn,
  ClipboardCheckIcon: ClipboardCheck,
  Layers2Icon: Layers2,
  PowerIcon: Power,
  KeyRoundIcon: KeyRound,
  EyeIcon: Eye,
  SplitIcon: Split,
  ServerIcon: Server,
  ActivitySquareIcon: SquareActivity,
  UserIcon: User,
  LineChartIcon: ChartLine,
  BuildingIcon: Building,
  LogoIcon,
  TieIcon,
  ArrowDownToLineIcon: ArrowDownToLine,
} as const satisfies Record<string, LucideIcon | DrawnIcon>

export type IconName = keyof typeof icons

export function Icon({ name, size = 24 }: { name: IconName; size?: number }): ReactElement {
  const Component = icons[name] as DrawnIcon
  return <Component width={size} height={size} aria-hidden="true" focusable="false" />
}
