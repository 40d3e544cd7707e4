// What `dlake doctor` finds: one line per check (docs/cli-contract.md "Doctor"), as data for every output format.
import { terminalSafe } from '../output/safe-text.js';
import { wrapWords } from '../output/width.js';

type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** The check's short name: `config`, `dns`, `tls`, … */
  check: string;
  status: CheckStatus;
  /** What was found, in one sentence (never a secret). */
  finding: string;
  /** For a `fail` (and a `warn` worth acting on): the command or setting that fixes it. */
  fix?: string;
}

export interface DoctorReport {
  profile: string;
  url?: string;
  edition: string;
  checks: CheckResult[];
  /** True when no check failed. */
  ok: boolean;
}

/**
 * The report as lines: `ok    dns    …`, each fix under its check. On a terminal of `width` columns the texts
 * are wrapped at spaces under their column; piped, a line is never cut or wrapped.
 */
export function reportLines(report: DoctorReport, width?: number): string[] {
  const name = Math.max(...report.checks.map((c) => c.check.length));
  const indent = 6 + name + 2;
  const lines: string[] = [];
  // A finding may quote the service (its version, an answer's text): shown as a table's cells are.
  const say = (first: string, given: string) => {
    const text = terminalSafe(given);
    const wrapped = width ? wrapWords(text, Math.max(20, width - indent)) : [text];
    lines.push(`${first}${wrapped[0]}`, ...wrapped.slice(1).map((l) => `${' '.repeat(indent)}${l}`));
  };
  for (const c of report.checks) {
    say(`${c.status.padEnd(5)} ${c.check.padEnd(name)}  `, c.finding);
    if (c.fix) say(' '.repeat(indent), `fix: ${c.fix}`);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const warned = report.checks.filter((c) => c.status === 'warn').length;
  lines.push(
    '',
    failed
      ? `${failed} check${failed === 1 ? '' : 's'} failed${warned ? `, ${warned} warned` : ''}`
      : warned
        ? `no check failed; ${warned} warned`
        : 'every check passed',
  );
  return lines;
}
