// `dlake queue rules [--file F|-]`: the WLM ruleset in priority order, or replaced as a whole from a file of
// the API's object. The file's tag is sent when it has one (else the tag just read), so a file made from an
// older ruleset fails with exit 5 instead of undoing someone's change.
import type { Command } from '@commander-js/extra-typings';
import type { Ruleset, RulesetBody } from '../../api/queues.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Runtime } from '../../runtime.js';
import { examples, printDryRun, readJsonArgument } from '../common.js';

interface RulesOptions {
  file?: string;
  dryRun?: boolean;
}

export function register(queue: Command, rt: Runtime): void {
  queue
    .command('rules')
    .description(
      'Print the rules that place jobs on queues, in priority order, or replace them all from a file (--file)',
    )
    .option(
      '--file <file>',
      'replace the ruleset with the JSON object {tag, rules, defaultRule} in FILE (- for stdin)',
    )
    .option('--dry-run', 'with --file: print the request instead of sending it')
    .addHelpText(
      'after',
      examples(
        'dlake queue rules',
        'dlake queue rules -o json > rules.json',
        'dlake queue rules --file rules.json',
        "jq '.rules |= reverse' rules.json | dlake queue rules --file - --dry-run",
      ),
    )
    .action(rt.action(rules));
}

interface RuleRow {
  priority: string;
  name: string;
  action?: string;
  queue?: string;
  conditions?: string;
  rejectMessage?: string;
}

async function rules(ctx: Context, opts: RulesOptions): Promise<void> {
  const api = await import('../../api/queues.js');
  const client = await ctx.client();
  if (opts.file === undefined) return printRules(ctx, await api.getRules(client));
  const source = opts.file === '-' ? '--file (standard input)' : `--file (${opts.file})`;
  const raw = await readJsonArgument(opts.file === '-' ? '@-' : `@${opts.file}`, ctx.streams.stdin, '--file');
  const body = checkRulesetFile(raw, source);
  if (body.tag === undefined) body.tag = (await api.getRules(client)).tag;
  if (opts.dryRun) return printDryRun(ctx, api.replaceRulesRequest(body));
  const replaced = await api.replaceRules(client, body);
  await printRules(ctx, replaced);
  ctx.ui.notice(
    `Replaced the ruleset: ${replaced.rules.length} rule(s) and the default rule (tag ${replaced.tag}).`,
  );
}

function printRules(ctx: Context, ruleset: Ruleset): Promise<void> {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const row = (r: Ruleset['rules'][number], priority: string): RuleRow => ({
    priority,
    name: r.name,
    action: r.action,
    queue: r.acceptName ?? r.acceptId,
    conditions: str(r.conditions),
    rejectMessage: str(r.rejectMessage),
  });
  const rows = [
    ...ruleset.rules.map((r, i) => row(r, String(i + 1))),
    ...(ruleset.defaultRule ? [row(ruleset.defaultRule, 'default')] : []),
  ];
  return ctx.print<RuleRow>({
    data: ruleset,
    rows,
    view: {
      columns: [
        { header: 'PRIORITY', value: (r) => r.priority },
        { header: 'NAME', value: (r) => r.name },
        { header: 'ACTION', value: (r) => r.action },
        { header: 'QUEUE', value: (r) => r.queue },
        { header: 'CONDITIONS', value: (r) => r.conditions },
        { header: 'REJECT MESSAGE', value: (r) => r.rejectMessage },
      ],
    },
  });
}

/**
 * The ruleset a file holds: the API's object `{tag?, rules, defaultRule}` (as `queue rules -o json` prints
 * it). Refused before any request when it is not that shape.
 */
function checkRulesetFile(value: unknown, source: string): RulesetBody {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${source} must hold a JSON object {tag, rules, defaultRule}`, {
      hint: 'start from `dlake queue rules -o json > rules.json`',
    });
  }
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.rules)) throw new UsageError(`${source}: "rules" must be an array of rules`);
  v.rules.forEach((r, i) => {
    if (
      !r ||
      typeof r !== 'object' ||
      Array.isArray(r) ||
      typeof (r as { name?: unknown }).name !== 'string'
    ) {
      throw new UsageError(`${source}: rules[${i}] must be an object with a "name"`);
    }
  });
  if (!v.defaultRule || typeof v.defaultRule !== 'object' || Array.isArray(v.defaultRule)) {
    throw new UsageError(`${source}: "defaultRule" must be an object`, {
      hint: 'the service keeps one default rule; copy it from `dlake queue rules -o json`',
    });
  }
  if (v.tag !== undefined && typeof v.tag !== 'string' && typeof v.tag !== 'number') {
    throw new UsageError(`${source}: "tag" must be a string`);
  }
  return { ...(v as unknown as RulesetBody), ...(v.tag === undefined ? {} : { tag: String(v.tag) }) };
}
