// `dlake sql -f FILE`: the statements of a script, run one after the other, each result printed in the
// output format. The first failure stops the run and names the statement (number and line); with
// --continue-on-error every statement runs and the exit code is that of the first failure.
import type { Context } from '../context.js';
import { DlakeError, InterruptedError, rephrased, UsageError } from '../errors.js';
import { splitSql } from '../sql/split.js';

const UNCLOSED = { string: 'string literal', identifier: 'quoted identifier', comment: 'comment' } as const;

/** The options of `dlake sql` a script reads. */
interface ScriptOptions {
  out?: string;
  into?: string;
  wait: boolean;
  continueOnError?: true;
}

/** `runStatement`: `dlake sql`'s own run of one statement (src/commands/sql.ts runQuery). */
export async function runScript(
  ctx: Context,
  script: { name: string; text: string },
  opts: ScriptOptions,
  runStatement: (text: string) => Promise<void>,
): Promise<void> {
  const split = splitSql(script.text);
  const statements = split.rest ? [...split.statements, split.rest] : split.statements;
  if (split.inside !== 'nothing') {
    // Sent as it is, the service would answer with a parse error far from the cause: say it first.
    const last = statements.at(-1);
    throw new UsageError(
      `${script.name}: statement ${statements.length} (line ${last?.line ?? 1}) has an unclosed ${UNCLOSED[split.inside]}`,
    );
  }
  if (statements.length === 0) throw new UsageError(`${script.name} holds no SQL statement`);
  if (statements.length > 1 && (opts.out || opts.into !== undefined || !opts.wait)) {
    const flag = opts.out ? '--out' : opts.into !== undefined ? '--into' : '--no-wait';
    throw new UsageError(`${flag} takes one statement; ${script.name} holds ${statements.length}`, {
      hint: 'run the statement whose rows you want on its own, e.g. dlake sql "SELECT …" --out FILE',
    });
  }
  let first: { where: string; exitCode: number } | undefined;
  let failures = 0;
  for (const [k, statement] of statements.entries()) {
    // Tables of consecutive results stay apart; csv, json and ndjson are left as they stream.
    if (k > 0 && ctx.format === 'table') ctx.streams.stdout.write('\n');
    try {
      await runStatement(statement.text);
    } catch (err) {
      // Ctrl-C ends the whole run, and a bug is not a statement's failure.
      if (!(err instanceof DlakeError) || err instanceof InterruptedError) throw err;
      // The failure's own words, exit code and hint, prefixed with where it is.
      const where = `statement ${k + 1} (line ${statement.line})`;
      const failure = rephrased(err, `${where}: ${err.message}`);
      if (!opts.continueOnError) throw failure;
      first ??= { where, exitCode: err.exitCode };
      failures++;
      // Said at once, in the same form as the error that ends a command.
      ctx.sayFailure(failure);
    }
  }
  if (first) {
    throw new StatementFailures(
      `${failures} of ${statements.length} statements failed; the first was ${first.where}`,
      first.exitCode,
    );
  }
}

/** The summary of a run with --continue-on-error, with the exit code of its first failure. */
class StatementFailures extends DlakeError {
  override readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}
