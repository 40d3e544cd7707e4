// `dlake engine rules [--file F|-]`: the rules that route a project's jobs to its engines, in priority order, or
// replaced as a whole from a file of the API's `ruleSet` object, as `dlake queue rules` does for queues. The
// file's tag is sent when it has one (else the tag just read), so a file made from an older rule set fails with
// exit 5 instead of undoing someone's change.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { requireHosted } from '../project.js';
import { addRuleSetOptions, showOrReplaceRuleSet } from '../rule-set.js';

const declaration = (engine: Command) =>
  addRuleSetOptions(
    engine
      .command('rules')
      .description(
        'Print the rules that route jobs to engines, in priority order, or replace them all from a file (--file)',
      ),
    'rule set',
    '{ruleInfos, ruleInfoDefault, tag}',
  ).addHelpText(
    'after',
    examples(
      'dlake engine rules',
      'dlake engine rules -o json > rules.json',
      'dlake engine rules --file rules.json',
      "jq '.ruleInfos |= reverse' rules.json | dlake engine rules --file - --dry-run",
    ),
  );

export const register = defineCommand(declaration, rules);

async function rules(ctx: Context, opts: OptionsOf<typeof declaration>): Promise<void> {
  await requireHosted(ctx, 'engine rules');
  const api = await import('../../api/engines.js');
  const client = await ctx.client();
  await showOrReplaceRuleSet(ctx, opts, {
    read: () => api.getEngineRules(client),
    rules: (set) => set.ruleInfos,
    defaultRule: (set) => set.ruleInfoDefault,
    row: (r) => ({
      name: r.name,
      action: r.action,
      target: r.engineName,
      condition: r.condition,
      rejectMessage: r.rejectMessage,
    }),
    targetHeader: 'ENGINE',
    conditionHeader: 'CONDITION',
    check: checkRuleSetFile,
    request: (body) => api.replaceEngineRulesRequest(body),
    replace: (body) => api.replaceEngineRules(client, body),
    replaced: (set) => `Replaced the engine rules: ${set.ruleInfos.length} rule(s) and the default rule.`,
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
