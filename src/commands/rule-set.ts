// What `queue rules` and `engine rules` share: a rule set is printed in priority order with its default rule
// last, or replaced as a whole from a file of the API's object. The file's tag is sent when it has one (else
// the tag just read), so a file made from an older rule set fails with exit 5 instead of undoing someone's
// change. Each verb keeps its own endpoints, its file's shape and its words.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { printDryRun, readJsonArgument } from './common.js';

/** `--file` and `--dry-run`: `what` is the rule set's name, `shape` its JSON object's keys. */
export function addRuleSetOptions<A extends unknown[], O extends Record<string, unknown>>(
  cmd: Command<A, O>,
  what: string,
  shape: string,
) {
  return cmd
    .option('--file <file>', `replace the ${what} with the JSON object ${shape} in FILE (- for stdin)`)
    .option('--dry-run', 'with --file: print the request instead of sending it');
}

/** One rule as a table row; `target` is where it sends jobs (a queue, an engine). */
interface RuleRow {
  priority: string;
  name: string;
  action?: string;
  target?: string;
  condition?: string;
  rejectMessage?: string;
}

/** How a verb's rule set reads as rows, and the words of the columns that differ. */
interface RuleTable<S, R> {
  rules: (set: S) => readonly R[];
  defaultRule: (set: S) => R | undefined;
  row: (rule: R) => Omit<RuleRow, 'priority'>;
  targetHeader: string;
  conditionHeader: string;
}

/** json: the service's object; table/csv: a row a rule, numbered by priority, the default rule last. */
function printRuleSet<S, R>(ctx: Context, set: S, table: RuleTable<S, R>): Promise<void> {
  const fallback = table.defaultRule(set);
  const rows: RuleRow[] = [
    ...table.rules(set).map((r, i) => ({ priority: String(i + 1), ...table.row(r) })),
    ...(fallback ? [{ priority: 'default', ...table.row(fallback) }] : []),
  ];
  return ctx.print<RuleRow>({
    data: set,
    rows,
    view: {
      columns: [
        { header: 'PRIORITY', value: (r) => r.priority },
        { header: 'NAME', value: (r) => r.name },
        { header: 'ACTION', value: (r) => r.action },
        { header: table.targetHeader, value: (r) => r.target },
        { header: table.conditionHeader, value: (r) => r.condition },
        { header: 'REJECT MESSAGE', value: (r) => r.rejectMessage },
      ],
    },
  });
}

/** A verb's rule set at the service, and how its file is checked. */
interface RuleSetVerb<S extends { tag?: string }, R, B extends { tag?: string }> extends RuleTable<S, R> {
  read: () => Promise<S>;
  /** The body a file holds, refused (UsageError) before any request when it is not the API's shape. */
  check: (value: unknown, source: string) => B;
  request: (body: B) => Parameters<typeof printDryRun>[1];
  replace: (body: B) => Promise<S>;
  /** The notice once replaced. */
  replaced: (set: S) => string;
}

/** Without `file`: prints the rule set. With it: replaces the rule set by the file's (`-`: stdin). */
export async function showOrReplaceRuleSet<S extends { tag?: string }, R, B extends { tag?: string }>(
  ctx: Context,
  opts: { file?: string; dryRun?: boolean },
  verb: RuleSetVerb<S, R, B>,
): Promise<void> {
  if (opts.file === undefined) return printRuleSet(ctx, await verb.read(), verb);
  const source = opts.file === '-' ? '--file (standard input)' : `--file (${opts.file})`;
  const raw = await readJsonArgument(opts.file === '-' ? '@-' : `@${opts.file}`, ctx.streams.stdin, '--file');
  const body = verb.check(raw, source);
  if (body.tag === undefined) body.tag = (await verb.read()).tag;
  if (opts.dryRun) return printDryRun(ctx, verb.request(body));
  const replaced = await verb.replace(body);
  await printRuleSet(ctx, replaced, verb);
  ctx.ui.notice(verb.replaced(replaced));
}
