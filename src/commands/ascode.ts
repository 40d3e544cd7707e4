// `dlake pull`, `dlake plan`, `dlake apply`: definitions as code. The work is in src/ascode; these commands
// read options, print and choose the exit code.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import type { ApplyResult } from '../ascode/apply.js';
import type { PlanEntry } from '../ascode/diff.js';
import type { Context } from '../context.js';
import { DlakeError, ExitCode, InterruptedError, QuietExit, UsageError } from '../errors.js';
import { planFor, READ_CONCURRENCY } from '../ops/plan.js';
import { stderrSafe, terminalSafe } from '../output/safe-text.js';
import { formatPath, parseRef } from '../util/catalog-ref.js';
import { REDACTED } from '../util/redact.js';
import { confirmDestructive, examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import { concurrencyOption } from './options.js';

const DEFAULT_CONCURRENCY = 8;

const dirOption = () =>
  new Option('--dir <dir>', 'the folder of definition files (*.yaml)').makeOptionMandatory();
const pruneOption = () =>
  new Option('--prune', "also delete what no file names under the files' roots (see the README)");
const mapOption = () =>
  new Option('--map <file>', 'rename users and roles for this environment (YAML: users: {a: b}, roles: {…})');
const refreshSecretsOption = () =>
  new Option(
    '--refresh-secrets',
    "send the sources' environment-variable secrets again, even when nothing else changed",
  );

const pullDeclaration = (cmd: Command) =>
  cmd
    .description(
      'Write the definitions of spaces, folders, views, datasets and sources (with --kinds, also queues, the ruleset, reflections, grants, users and roles) to YAML files',
    )
    .argument('[ref...]', 'paths or ids to pull (default: every space and source)')
    .addOption(dirOption())
    .option(
      '--kinds <kinds>',
      'also pull these kinds, comma-separated: queue, rule, reflection, grant, user, role (reflections and grants of the entities pulled)',
    )
    .option('--prune', 'also remove the files of entities that no longer exist under what is pulled')
    .addHelpText(
      'after',
      examples(
        'dlake pull --dir lake',
        'dlake pull Sales Lake --dir lake',
        'dlake pull -p prod --dir lake',
        'dlake pull --dir lake --kinds queue,rule,reflection,grant,user,role',
        'dlake pull --dir lake --prune',
      ),
    );

export const pull = defineCommand(pullDeclaration, pullDefinitions);

const planDeclaration = (cmd: Command) =>
  cmd
    .description('Show what apply would change to make the service match the definition files')
    .argument('[ref...]', 'plan only these paths (or ids) and what lies below them (default: every file)')
    .addOption(dirOption())
    .addOption(pruneOption())
    .addOption(mapOption())
    .addOption(refreshSecretsOption())
    .option('--out <file>', 'also save the plan to FILE, for apply --plan (no secret value is saved)')
    .option('--exit-code', 'exit 8 when there are changes')
    .addHelpText(
      'after',
      examples(
        'dlake plan --dir lake',
        'dlake plan --dir lake --exit-code -o json',
        'dlake plan --dir lake --prune',
        'dlake plan --dir lake Sales/reports',
        'dlake plan -p prod --dir lake --map prod-names.yaml --out plan.json',
      ),
    );

export const plan = defineCommand(planDeclaration, planDefinitions);

const applyDeclaration = (cmd: Command) =>
  cmd
    .description('Create and update entities so that the service matches the definition files')
    .argument('[ref...]', 'apply only these paths (or ids) and what lies below them (default: every file)')
    .addOption(new Option('--dir <dir>', 'the folder of definition files (*.yaml)'))
    .addOption(
      // A saved plan is applied as it was made: what shapes a plan goes to the plan command that saves it.
      new Option(
        '--plan <file>',
        'apply this saved plan (plan --out) exactly, instead of reading --dir',
      ).conflicts(['dir', 'prune', 'map', 'refreshSecrets']),
    )
    .addOption(pruneOption())
    .addOption(mapOption())
    .addOption(refreshSecretsOption())
    .option('--dry-run', 'print the plan and change nothing')
    .option('-y, --yes', 'delete (--prune) without asking; needed without a terminal')
    .option(
      '--allow-breaking',
      'with --prune: delete views and datasets even when views that remain read them (see the plan: ! breaks)',
    )
    .addOption(concurrencyOption('writes', DEFAULT_CONCURRENCY))
    .addHelpText(
      'after',
      examples(
        'dlake apply --dir lake',
        'dlake apply -p prod --dir lake --dry-run',
        'dlake apply --dir lake --prune --yes',
        'dlake apply --dir lake Sales/reports',
        'dlake apply -p prod --plan plan.json',
        'dlake apply --dir lake --refresh-secrets',
      ),
    );

export const apply = defineCommand(applyDeclaration, applyDefinitions);

async function pullDefinitions(
  ctx: Context,
  refs: string[],
  opts: OptionsOf<typeof pullDeclaration>,
): Promise<void> {
  const { pullDefinitions } = await import('../ascode/pull.js');
  const { keepReferences } = await import('../ascode/substitution.js');
  const { checkPullTargets, writeDefinitions } = await import('../ascode/folder.js');
  const { fileFor } = await import('../ascode/layout.js');
  const admin = opts.kinds === undefined ? undefined : await import('../ascode/admin-kinds.js');
  const kinds = admin?.parseKinds(opts.kinds!) ?? [];
  const parsed = refs.map(parseRef);
  refuseFile(opts.dir);
  const client = await ctx.client();
  const roots: string[][] = [];
  const catalogDefs = await pullDefinitions(client, parsed, READ_CONCURRENCY, roots);
  // Everything is read before the first file is written, so a failure leaves the folder as it was.
  const defs = admin
    ? [...catalogDefs, ...(await admin.pullAdminKinds(client, kinds, catalogDefs, READ_CONCURRENCY))]
    : catalogDefs;
  // A link or a folder in the way is refused before any file of the folder is read (or written).
  checkPullTargets(opts.dir, defs);
  let stale: string[] = [];
  if (opts.prune) {
    const { staleFiles } = await import('../ascode/pull-prune.js');
    const targets = defs.map((d) => fileFor(opts.dir, d));
    stale = staleFiles(opts.dir, targets, new Set(kinds), parsed.length ? roots : undefined);
  }
  const { removed } = writeDefinitions(opts.dir, keepReferences(opts.dir, defs, ctx.env), stale);
  ctx.ui.notice(`Pulled ${defs.length} definition${defs.length === 1 ? '' : 's'} into ${opts.dir}.`);
  if (!opts.prune) return;
  for (const file of removed) ctx.ui.notice(`removed ${relative(opts.dir, file)} (no longer on the service)`);
  ctx.ui.notice(`Removed ${removed.length} file${removed.length === 1 ? '' : 's'}.`);
}

/** `--dir` naming a file (not a folder, nor nothing yet) is refused before anything is read from the service. */
function refuseFile(dir: string): void {
  let isFolder = true;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    // Nothing there yet (pull creates it), or a path that writeDefinitions reports with its cause.
  }
  if (!isFolder) {
    throw new UsageError(`--dir ${dir} is a file, not a folder`, {
      hint: 'give a folder for the definition files (pull creates it if it does not exist)',
    });
  }
}

const ACTION_MARK = { create: '+ create', update: '~ update', delete: '- delete' } as const;

const entityLine = (e: PlanEntry) => `${e.def.kind} ${formatPath(e.def.path) || '(the ruleset)'}`;

const show = (v: unknown) => JSON.stringify(v);

/** At most `max` paths, then how many more. */
function pathList(paths: readonly string[][], max = 5): string {
  const shown = paths.slice(0, max).map((p) => formatPath(p));
  return paths.length > max ? `${shown.join(', ')} and ${paths.length - max} more` : shown.join(', ');
}

/**
 * The plan as a person reads a diff (deletes first, so that they are not missed; a delete that would break
 * views that remain says which), then the summary line. An entity that could not be planned is `! error`.
 */
function planText(plan: readonly PlanEntry[]): string {
  const lines: string[] = [];
  for (const e of plan) {
    if (e.error) {
      lines.push(`! error ${entityLine(e)}: ${e.error.message}`);
      continue;
    }
    lines.push(`${ACTION_MARK[e.action]} ${entityLine(e)}${e.secrets?.length ? ' (secrets)' : ''}`);
    if (e.breaks?.length) lines.push(`    ! breaks ${pathList(e.breaks)}`);
    for (const c of e.changes) {
      if (e.action === 'create') lines.push(`    ${c.field}: ${show(c.to)}`);
      else
        lines.push(
          `    ${c.field}: ${c.from === undefined ? '(none)' : show(c.from)} → ${c.to === undefined ? '(none)' : show(c.to)}`,
        );
    }
  }
  const count = (action: PlanEntry['action']) => plan.filter((e) => !e.error && e.action === action).length;
  const errors = plan.filter((e) => e.error).length;
  lines.push(
    `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete${errors ? `; ${errors} cannot be planned` : ''}.`,
  );
  return `${lines.join('\n')}\n`;
}

/** The plan on stdout; `read` (what was read to decide its deletes) first in text, on stderr with -o json. */
async function printPlan(ctx: Context, plan: readonly PlanEntry[], read?: string): Promise<void> {
  if (ctx.format === 'json') {
    const { planJson } = await import('../ascode/plan.js');
    if (read) ctx.ui.notice(read);
    ctx.streams.stdout.write(`${JSON.stringify(planJson(plan), null, 2)}\n`);
  } else ctx.streams.stdout.write(`${read ? `${terminalSafe(read)}\n` : ''}${planText(plan)}`);
}

async function planDefinitions(
  ctx: Context,
  refs: string[],
  opts: OptionsOf<typeof planDeclaration>,
): Promise<void> {
  const { entries, read } = await planFor(ctx, refs, opts);
  await showPlan(ctx, entries, read);
  if (opts.out !== undefined) {
    const { writeSavedPlan } = await import('../ascode/saved-plan.js');
    writeSavedPlan(opts.out, entries, (await ctx.client()).baseUrl);
    ctx.ui.notice(`Saved the plan to ${opts.out}: apply it with dlake apply --plan ${opts.out}`);
  }
  if (opts.exitCode && entries.length) throw new QuietExit(ExitCode.changes);
}

/** Prints the plan; an entity that could not be planned then ends the command (exit 2), after the rest. */
async function showPlan(ctx: Context, entries: readonly PlanEntry[], read?: string): Promise<void> {
  await printPlan(ctx, entries, read);
  const failed = entries.filter((e) => e.error);
  if (failed.length) {
    const { definitionLabel } = await import('../ascode/definitions.js');
    throw failures(
      ctx,
      failed.map((e) => ({ entry: e, error: e.error })),
      definitionLabel,
    );
  }
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
 * Every failure but the first as an `error:` line, and the first as the error that ends the command with its
 * exit code (a skipped entry's is that of the failure it names).
 */
function failures(
  ctx: Context,
  failed: readonly ApplyResult[],
  label: (def: ApplyResult['entry']['def']) => string,
): ApplyFailures {
  for (const r of failed.slice(1)) ctx.ui.error(failureLine(r, label));
  const first = failed[0]!;
  const code = first.error instanceof DlakeError ? first.error.exitCode : ExitCode.bug;
  return new ApplyFailures(failureLine(first, label), code);
}

/**
 * Deletes are confirmed before anything is written, as `terraform apply` asks before it starts: without a
 * terminal and without --yes, or when the answer is no, the whole apply stops and nothing changes. So does a
 * delete that would break views that remain, unless --allow-breaking says so.
 */
async function confirmDeletes(
  ctx: Context,
  entries: readonly PlanEntry[],
  opts: { yes?: boolean; allowBreaking?: boolean },
) {
  const deletes = entries.filter((e) => e.action === 'delete');
  if (deletes.length === 0) return;
  const breaking = deletes.filter((e) => e.breaks?.length);
  if (breaking.length && !opts.allowBreaking) {
    throw new UsageError(
      `nothing was applied: ${breaking.length === 1 ? 'a delete' : `${breaking.length} deletes`} would break views that remain`,
      {
        details: breaking.map((e) => `${entityLine(e)} is read by ${pathList(e.breaks!)}`),
        hint: 'delete the files of those views too (or change what they read), or pass --allow-breaking',
      },
    );
  }
  if (!opts.yes && ctx.ui.interactive) {
    const list = deletes.map((e) => `  - ${entityLine(e)}\n`).join('');
    ctx.streams.stderr.write(stderrSafe(`No file names these, under the files' roots:\n${list}`));
  }
  const n = deletes.length;
  await confirmDestructive(ctx, `delete ${n === 1 ? 'this entity' : `these ${n} entities`}?`, opts.yes);
}

/**
 * `apply --dry-run`: the plan on stdout, then on stderr each request apply would send (`would send: PUT URL
 * BODY`, secrets redacted), found by applying it one entry at a time against a client that sends only its reads
 * (ascode/dry-run.ts). Nothing is written.
 */
async function dryApply(ctx: Context, entries: PlanEntry[], read?: string): Promise<void> {
  await showPlan(ctx, entries, read);
  const [{ applyPlan }, { dryRunClient }] = await Promise.all([
    import('../ascode/apply.js'),
    import('../ascode/dry-run.js'),
  ]);
  const client = dryRunClient(await ctx.client(), (r) =>
    ctx.ui.notice(
      `would send: ${r.method} ${r.url}${r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`}`,
    ),
  );
  // A secret's value is never printed: one not set here is no reason to stop the dry run.
  const env = new Proxy(ctx.env, { get: (e, k) => (typeof k === 'string' ? (e[k] ?? REDACTED) : undefined) });
  const results = await applyPlan(client, entries, { concurrency: 1, env, retryRounds: 0 });
  const failed = results.filter((r) => r.error !== undefined);
  if (failed.length) {
    const { definitionLabel } = await import('../ascode/definitions.js');
    throw failures(ctx, failed, definitionLabel);
  }
}

/** The plan apply carries out: the saved one (`--plan`), or the one made now from `--dir`. */
async function planToApply(
  ctx: Context,
  refs: readonly string[],
  opts: OptionsOf<typeof applyDeclaration>,
): Promise<{ entries: PlanEntry[]; read?: string }> {
  if (opts.plan === undefined) {
    if (opts.dir === undefined) {
      throw new UsageError('apply needs --dir DIR (the definition files) or --plan FILE (a saved plan)');
    }
    return planFor(ctx, refs, { ...opts, dir: opts.dir });
  }
  // The options that shape a plan are refused with --plan by commander (`.conflicts`); REFs are arguments.
  if (refs.length > 0) {
    throw new UsageError('--plan applies the saved plan as it is: REFs cannot go with it', {
      hint: 'give them to the plan command that saves it (dlake plan … --out FILE)',
    });
  }
  const { readSavedPlan } = await import('../ascode/saved-plan.js');
  return { entries: readSavedPlan(opts.plan, (await ctx.client()).baseUrl) };
}

async function applyDefinitions(
  ctx: Context,
  refs: string[],
  opts: OptionsOf<typeof applyDeclaration>,
): Promise<void> {
  const { entries, read } = await planToApply(ctx, refs, opts);
  if (opts.dryRun && entries.length > 0) return dryApply(ctx, entries, read);
  if (entries.length === 0) return showPlan(ctx, entries, read);
  if (read) ctx.ui.notice(read);
  await confirmDeletes(ctx, entries, opts);
  const { applyPlan, SkippedError } = await import('../ascode/apply.js');
  const { definitionLabel } = await import('../ascode/definitions.js');
  let done = 0;
  // A signal stops new writes; those under way finish (each has the client's timeout), then the summary says
  // where the apply stopped and dlake ends with the signal's code.
  ctx.interruptible = true;
  const under = new Set<PlanEntry>();
  const onStop = () => {
    if (ctx.ui.interactive) ctx.streams.stderr.write('\n');
    const names = [...under].map((e) => definitionLabel(e.def));
    if (names.length)
      ctx.streams.stderr.write(
        stderrSafe(
          `Stopping: waiting for the ${names.length === 1 ? 'write' : `${names.length} writes`} under way (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}).\n`,
        ),
      );
  };
  ctx.interrupt.signal.addEventListener('abort', onStop, { once: true });
  let results: ApplyResult[];
  try {
    results = await applyPlan(await ctx.client(), entries, {
      concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
      env: ctx.env,
      stop: ctx.interrupt.signal,
      onStart: (entry) => under.add(entry),
      onDone: (r) => {
        under.delete(r.entry);
        done++;
        if (ctx.ui.interactive && !ctx.interrupt.signal.aborted)
          ctx.streams.stderr.write(`\rApplied ${done} of ${entries.length}`);
      },
    });
  } finally {
    ctx.interrupt.signal.removeEventListener('abort', onStop);
    ctx.interruptible = false;
  }
  if (ctx.ui.interactive && !ctx.interrupt.signal.aborted) ctx.streams.stderr.write('\n');
  const skipped = results.filter((r) => r.error instanceof SkippedError);
  const failed = results.filter((r) => r.error !== undefined && !(r.error instanceof SkippedError));
  const notStarted = results.filter((r) => r.notStarted).length;
  const succeeded = (action: PlanEntry['action']) =>
    results.filter((r) => !r.error && !r.notStarted && r.entry.action === action).length;
  const deleted = entries.some((e) => e.action === 'delete') ? `${succeeded('delete')} deleted, ` : '';
  const stopped = ctx.interrupt.signal.aborted;
  ctx.ui.notice(
    `Applied: ${succeeded('create')} created, ${succeeded('update')} updated, ${deleted}${failed.length} failed` +
      `${skipped.length ? `, ${skipped.length} skipped` : ''}${stopped ? `; ${notStarted} not started` : ''}.`,
  );
  for (const r of results) {
    if (r.error || r.notStarted || r.entry.action !== 'create' || r.entry.def.kind !== 'user') continue;
    const name = r.entry.def.path[0]!;
    ctx.ui.notice(
      `user ${name} was created without a password: set one with dlake user update ${name} --password-stdin, unless it signs in through an external identity provider`,
    );
  }
  const all = [...failed, ...skipped];
  if (stopped) {
    for (const r of all) ctx.ui.error(failureLine(r, definitionLabel));
    throw new InterruptedError(
      `interrupted: the apply stopped, ${notStarted} ${notStarted === 1 ? 'entity was' : 'entities were'} not started`,
      { hint: 'run plan to see what is left, then apply again' },
    );
  }
  if (all.length === 0) return;
  throw failures(ctx, all, definitionLabel);
}
