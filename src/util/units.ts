// INTERIM (replaced by the units helper): durations only.
import { UsageError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(input: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(input.trim());
  if (!m) throw new UsageError(`invalid duration "${input}"`);
  return Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!;
}

export function formatDuration(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  return h ? `${h}h ${m}m` : `${m}m`;
}
