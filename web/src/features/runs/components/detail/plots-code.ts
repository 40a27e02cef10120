import { chartCode } from '@/components/ui/chart-code';

/** plots is the code the run page's charts are drawn with (plots.tsx and Recharts), loaded apart from its first screen. */
export const plots = chartCode(() => import('./plots'));
