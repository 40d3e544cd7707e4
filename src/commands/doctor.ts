// `dlake doctor [--bundle FILE.tar.gz]`: each step between dlake and the service checked and said in one line,
// with the fix of each that fails (docs/cli-contract.md "Doctor"); the exit code says whether one failed.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { ExitCode, QuietExit } from '../errors.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';

const declaration = (doctor: Command) =>
  doctor
    .description(
      'Check each step between dlake and the service (config, DNS, TCP, TLS, the API, the clock, the login, Flight) and say how to fix the one that fails',
    )
    .addHelpText(
      'after',
      examples('dlake doctor', 'dlake doctor -p prod -o json', 'dlake doctor --url https://lake.example.com'),
    );

export const register = defineCommand(declaration, doctor);

async function doctor(ctx: Context, _opts: OptionsOf<typeof declaration>): Promise<void> {
  const [{ runDoctor }, { reportLines }] = await Promise.all([
    import('../doctor/checks.js'),
    import('../doctor/report.js'),
  ]);
  const report = await runDoctor(ctx);
  if (ctx.format === 'table') ctx.streams.stdout.write(`${reportLines(report).join('\n')}\n`);
  else
    await ctx.print({
      data: report,
      rows: report.checks,
      view: {
        columns: [
          { header: 'CHECK', value: (c) => c.check },
          { header: 'STATUS', value: (c) => c.status },
          { header: 'FINDING', value: (c) => c.finding },
          { header: 'FIX', value: (c) => c.fix },
        ],
      },
    });
  if (!report.ok) throw new QuietExit(ExitCode.no);
}
