// `dlake engine rules [--file F|-]`: the rules that route a project's jobs to its engines, in priority order, or
// replaced as a whole from a file of the API's `ruleSet` object, as `dlake queue rules` does for queues. The
// file's tag is sent when it has one (else the tag just read), so a file made from an older rule set fails with
// exit 5 instead of undoing someone's change.
import type { Command } from '@commander-js/extra-typings';
import type { EngineRuleSet } from '../../api/engines.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { examples, printDryRun, readJsonArgument } from '../common.js';
import { requireHosted } from '../project.js';

interface RulesOptions {
  file?: string;
  dryRun?: boolean;
}

export function register(engine: Command, rt: Runtime): void {
  engine
    .command('rules')
    .description(
      'Print the rules that route jobs to engines, in priority order, or replace them all from a file (--file)',
    )
    .option(
      '--file <file>',
      'replace the rule set with the JSON object {ruleInfos, ruleInfoDefault, tag} in FILE (- for stdin)',
    )
    .option('--dry-run', 'with --file: print the request instead of sending it')
    .addHelpText(
      'after',
      examples(
        'dlake engine rules',
        'dlake engine rules -o json > rules.json',
        'dlake engine rules --file rules.json',
        "jq '.ruleInfos |= reverse' rules.json | dlake engine rules --file - --dry-run",
      ),
    )
    .action(rt.action(rules));
}

interface RuleRow {
  priority: string;
  name: string;
  action?: string;
  engine?: string;
  condition?: string;
  rejectMessage?: string;
}

async function rules(ctx: Context, opts: RulesOptions): Promise<void> {
  await requireHosted(ctx, 'engine rules');
  const api = await import('../../api/engines.js');
  const root = ctx.root();
  const client = await ctx.client();
  if (opts.file === undefined) return printRules(ctx, await api.getEngineRules(client, root));
  const source = opts.file === '-' ? '--file (standard input)' : `--file (${opts.file})`;
  const raw = await readJsonArgument(opts.file === '-' ? '@-' : `@${opts.file}`, ctx.streams.stdin, '--file');
  const body = checkRuleSetFile(raw, source);
  if (body.tag === undefined) body.tag = (await api.getEngineRules(client, root)).tag;
  if (opts.dryRun) return printDryRun(ctx, api.replaceEngineRulesRequest(root, body));
  const replaced = await api.replaceEngineRules(client, root, body);
  await printRules(ctx, replaced);
  ctx.ui.notice(`Replaced the engine rules: ${replaced.ruleInfos.length} rule(s) and the default rule.`);
}

function printRules(ctx: Context, set: EngineRuleSet): Promise<void> {
  const row = (r: EngineRuleSet['ruleInfos'][number], priority: string): RuleRow => ({
    priority,
    name: r.name,
    action: r.action,
    engine: r.engineName,
    condition: r.condition,
    rejectMessage: r.rejectMessage,
  });
  const rows = [
    ...set.ruleInfos.map((r, i) => row(r, String(i + 1))),
    ...(set.ruleInfoDefault ? [row(set.ruleInfoDefault, 'default')] : []),
  ];
  return ctx.print<RuleRow>({
    data: set,
    rows,
    view: {
      columns: [
        { header: 'PRIORITY', value: (r) => r.priority },
        { header: 'NAME', value: (r) => r.name },
        { header: 'ACTION', value: (r) => r.action },
        { header: 'ENGINE', value: (r) => r.engine },
        { header: 'CONDITION', value: (r) => r.condition },
        { header: 'REJECT MESSAGE', value: (r) => r.rejectMessage },
      ],
    },
  });
}

/** The rule set a file holds, as `engine rules -o json` prints it; refused before any request otherwise. */
function checkRuleSetFile(value: unknown, source: string): Record<string, unknown> & { tag?: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${source} must hold a JSON object {ruleInfos, ruleInfoDefault, tag}`, {
      hint: 'start from `dlake engine rules -o json > rules.json`',
    });
  }
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.ruleInfos)) throw new UsageError(`${source}: "ruleInfos" must be an array of rules`);
  v.ruleInfos.forEach((r, i) => {
    if (!r || typeof r !== 'object' || typeof (r as { name?: unknown }).name !== 'string') {
      throw new UsageError(`${source}: ruleInfos[${i}] must be an object with a "name"`);
    }
  });
  if (v.tag !== undefined && typeof v.tag !== 'string')
    throw new UsageError(`${source}: "tag" must be a string`);
  return v as Record<string, unknown> & { tag?: string };
}
