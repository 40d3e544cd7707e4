// `dlake queue rules [--file F|-]`: the WLM ruleset in priority order, or replaced as a whole from a file of
// the API's object. The file's tag is sent when it has one (else the tag just read), so a file made from an
// older ruleset fails with exit 5 instead of undoing someone's change.
import type { Command } from '@commander-js/extra-typings';
import type { RulesetBody } from '../../api/queues.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { addRuleSetOptions, showOrReplaceRuleSet } from '../rule-set.js';

const declaration = (queue: Command) =>
  addRuleSetOptions(
    queue
      .command('rules')
      .description(
        'Print the rules that place jobs on queues, in priority order, or replace them all from a file (--file)',
      ),
    'ruleset',
    '{tag, rules, defaultRule}',
  ).addHelpText(
    'after',
    examples(
      'dlake queue rules',
      'dlake queue rules -o json > rules.json',
      'dlake queue rules --file rules.json',
      "jq '.rules |= reverse' rules.json | dlake queue rules --file - --dry-run",
    ),
  );

export const register = defineCommand(declaration, rules);

async function rules(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  const api = await import('../../api/queues.js');
  const client = await ctx.client();
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  await showOrReplaceRuleSet(ctx, opts, {
    read: () => api.getRules(client),
    rules: (set) => set.rules,
    defaultRule: (set) => set.defaultRule,
    row: (r) => ({
      name: r.name,
      action: r.action,
      target: r.acceptName ?? r.acceptId,
      condition: str(r.conditions),
      rejectMessage: str(r.rejectMessage),
    }),
    targetHeader: 'QUEUE',
    conditionHeader: 'CONDITIONS',
    check: checkRulesetFile,
    request: api.replaceRulesRequest,
    replace: (body) => api.replaceRules(client, body),
    replaced: (set) =>
      `Replaced the ruleset: ${set.rules.length} rule(s) and the default rule (tag ${set.tag}).`,
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
