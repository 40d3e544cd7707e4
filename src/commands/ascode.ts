// `dlake pull`, `dlake plan`, `dlake apply`: definitions as code. The work is in src/ascode; these commands
// read options, print and choose the exit code.
import { type Command, Option } from 'commander';
import type { ApplyResult } from '../ascode/apply.js';
import type { PlanEntry } from '../ascode/plan.js';
import type { Context } from '../context.js';
import { DlakeError, ExitCode, QuietExit } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { formatPath, parseRef } from '../util/catalog-ref.js';
import { confirmDestructive, examples } from './common.js';
import { concurrencyOption } from './options.js';

const DEFAULT_CONCURRENCY = 8;

const dirOption = () =>
  new Option('--dir <dir>', 'the folder of definition files (*.yaml)').makeOptionMandatory();
const pruneOption = () =>
  new Option('--prune', "also delete what no file names under the files' roots (see the README)");

export function register(program: Command, rt: Runtime): void {
  program
    .command('pull')
    .description(
      'Write the definitions of spaces, folders, views, datasets and sources (with --kinds, also queues, the ruleset, reflections and grants) to YAML files',
    )
    .argument('[ref...]', 'paths or ids to pull (default: every space and source)')
    .addOption(dirOption())
    .option(
      '--kinds <kinds>',
      'also pull these kinds, comma-separated: queue, rule, reflection, grant (reflections and grants of the entities pulled)',
    )
    .addHelpText(
      'after',
      examples(
        'dlake pull --dir lake',
        'dlake pull Sales Lake --dir lake',
        'dlake pull -p prod --dir lake',
        'dlake pull --dir lake --kinds queue,rule,reflection,grant',
      ),
    )
    .action(rt.action(pull));
  program
    .command('plan')
    .description('Show what apply would change to make the service match the definition files')
    .addOption(dirOption())
    .addOption(pruneOption())
    .option('--exit-code', 'exit 8 when there are changes')
    .addHelpText(
      'after',
      examples(
        'dlake plan --dir lake',
        'dlake plan --dir lake --exit-code -o json',
        'dlake plan --dir lake --prune',
      ),
    )
    .action(rt.action(plan));
  program
    .command('apply')
    .description('Create and update entities so that the service matches the definition files')
    .addOption(dirOption())
    .addOption(pruneOption())
    .option('--dry-run', 'print the plan and change nothing')
    .option('-y, --yes', 'delete (--prune) without asking; needed without a terminal')
    .addOption(concurrencyOption('writes', DEFAULT_CONCURRENCY))
    .addHelpText(
      'after',
      examples(
        'dlake apply --dir lake',
        'dlake apply -p prod --dir lake --dry-run',
        'dlake apply --dir lake --prune --yes',
      ),
    )
    .action(rt.action(apply));
}

async function pull(ctx: Context, refs: string[], opts: { dir: string; kinds?: string }): Promise<void> {
  const { pullDefinitions } = await import('../ascode/pull.js');
  const { writeDefinitions } = await import('../ascode/definitions.js');
  const admin = opts.kinds === undefined ? undefined : await import('../ascode/admin-kinds.js');
  const kinds = admin?.parseKinds(opts.kinds!) ?? [];
  const parsed = refs.map(parseRef);
  const client = await ctx.client();
  const catalogDefs = await pullDefinitions(client, parsed);
  // Everything is read before the first file is written, so a failure leaves the folder as it was.
  const defs = admin
    ? [...catalogDefs, ...(await admin.pullAdminKinds(client, kinds, catalogDefs, DEFAULT_CONCURRENCY))]
    : catalogDefs;
  writeDefinitions(opts.dir, defs);
  ctx.ui.notice(`Pulled ${defs.length} definition${defs.length === 1 ? '' : 's'} into ${opts.dir}.`);
}

/** The plan for the files in `dir`; with `prune`, its deletes come first (see planText). */
async function readPlan(ctx: Context, dir: string, prune: boolean | undefined): Promise<PlanEntry[]> {
  const { readDefinitions } = await import('../ascode/definitions.js');
  const { computePlan } = await import('../ascode/plan.js');
  const { labelOf, portableTo } = await import('../ascode/editions.js');
  // Files pulled from the other edition: what this one cannot take is set aside, each with why.
  const { defs, setAside } = portableTo(ctx.root(), readDefinitions(dir));
  for (const s of setAside) ctx.ui.warn(`not carried over: ${labelOf(s.def)} (${s.reason})`);
  const client = await ctx.client();
  const writes = await computePlan(client, defs);
  if (!prune) return writes;
  const { planDeletes } = await import('../ascode/prune.js');
  return [...(await planDeletes(client, defs)), ...writes];
}

const ACTION_MARK = { create: '+ create', update: '~ update', delete: '- delete' } as const;

const entityLine = (e: PlanEntry) => `${e.def.kind} ${formatPath(e.def.path) || '(the ruleset)'}`;

const show = (v: unknown) => JSON.stringify(v);

/** The plan as a person reads a diff (deletes first, so that they are not missed), then the summary line. */
function planText(plan: readonly PlanEntry[]): string {
  const lines: string[] = [];
  for (const e of plan) {
    lines.push(`${ACTION_MARK[e.action]} ${entityLine(e)}`);
    for (const c of e.changes) {
      if (e.action === 'create') lines.push(`    ${c.field}: ${show(c.to)}`);
      else
        lines.push(
          `    ${c.field}: ${c.from === undefined ? '(none)' : show(c.from)} → ${c.to === undefined ? '(none)' : show(c.to)}`,
        );
    }
  }
  const count = (action: PlanEntry['action']) => plan.filter((e) => e.action === action).length;
  lines.push(
    `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`,
  );
  return `${lines.join('\n')}\n`;
}

async function printPlan(ctx: Context, plan: readonly PlanEntry[]): Promise<void> {
  if (ctx.format === 'json') {
    const { planJson } = await import('../ascode/plan.js');
    ctx.streams.stdout.write(`${JSON.stringify(planJson(plan), null, 2)}\n`);
  } else ctx.streams.stdout.write(planText(plan));
}

async function plan(ctx: Context, opts: { dir: string; prune?: boolean; exitCode?: boolean }): Promise<void> {
  const entries = await readPlan(ctx, opts.dir, opts.prune);
  await printPlan(ctx, entries);
  if (opts.exitCode && entries.length) throw new QuietExit(ExitCode.changes);
}

/** Failures after the first, reported one line each; the first ends the command with its exit code. */
class ApplyFailures extends DlakeError {
  override readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

function failureLine(r: ApplyResult, label: (def: ApplyResult['entry']['def']) => string): string {
  const message = r.error instanceof Error ? r.error.message : String(r.error);
  return `${label(r.entry.def)}: ${message}`;
}

/**
 * Deletes are confirmed before anything is written, as `terraform apply` asks before it starts: without a
 * terminal and without --yes, or when the answer is no, the whole apply stops and nothing changes.
 */
async function confirmDeletes(ctx: Context, entries: readonly PlanEntry[], yes: boolean | undefined) {
  const deletes = entries.filter((e) => e.action === 'delete');
  if (deletes.length === 0) return;
  if (!yes && ctx.ui.interactive) {
    const list = deletes.map((e) => `  - ${entityLine(e)}\n`).join('');
    ctx.streams.stderr.write(`No file names these, under the files' roots:\n${list}`);
  }
  const n = deletes.length;
  await confirmDestructive(ctx, `delete ${n === 1 ? 'this entity' : `these ${n} entities`}?`, yes);
}

async function apply(
  ctx: Context,
  opts: { dir: string; prune?: boolean; dryRun?: boolean; yes?: boolean; concurrency?: number },
): Promise<void> {
  const entries = await readPlan(ctx, opts.dir, opts.prune);
  if (opts.dryRun || entries.length === 0) {
    await printPlan(ctx, entries);
    return;
  }
  await confirmDeletes(ctx, entries, opts.yes);
  const { applyPlan } = await import('../ascode/apply.js');
  let done = 0;
  const results = await applyPlan(await ctx.client(), entries, {
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    env: ctx.env,
    onDone: () => {
      done++;
      if (ctx.ui.interactive) ctx.streams.stderr.write(`\rApplied ${done} of ${entries.length}`);
    },
  });
  if (ctx.ui.interactive) ctx.streams.stderr.write('\n');
  const failed = results.filter((r) => r.error !== undefined);
  const succeeded = (action: PlanEntry['action']) =>
    results.filter((r) => !r.error && r.entry.action === action).length;
  const deleted = opts.prune ? `${succeeded('delete')} deleted, ` : '';
  ctx.ui.notice(
    `Applied: ${succeeded('create')} created, ${succeeded('update')} updated, ${deleted}${failed.length} failed.`,
  );
  if (failed.length === 0) return;
  const { stderr } = ctx.streams;
  const { definitionLabel } = await import('../ascode/definitions.js');
  for (const r of failed.slice(1))
    stderr.write(`${ctx.theme.danger('error:')} ${failureLine(r, definitionLabel)}\n`);
  const first = failed[0]!;
  const code = first.error instanceof DlakeError ? first.error.exitCode : ExitCode.bug;
  throw new ApplyFailures(failureLine(first, definitionLabel), code);
}
