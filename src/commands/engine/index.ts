// `dlake engine list|get|create|update|delete|enable|disable|rules`: the hosted edition's engines and the rules
// that route jobs to them (docs/api-facts.md §13.4), with the conventions of `dlake queue`: durations in human
// units (5m, 90s) in and out, -o json prints the API's seconds, --dry-run prints the request, deletion asks
// first, and an update changes only what is given (the engine read is sent back whole).
import type { Command } from '@commander-js/extra-typings';
import type { Engine, EngineFields } from '../../api/engines.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { detail, type FieldSpec, fieldRows } from '../../output/view.js';
import { formatDuration } from '../../util/units.js';
import { confirmDestructive, examples, printDryRun, send } from '../common.js';
import { type Declare, defineCommand, defineGroup, type OptionsOf } from '../define.js';
import * as options from '../options.js';
import { requireHosted } from '../project.js';
import * as rules from './rules.js';

const createDeclaration = (engine: Command) =>
  addEngineOptions(
    engine
      .command('create')
      .description('Create an engine; what is not given takes the service default')
      .requiredOption('--name <name>', 'engine name (unique in the project)'),
  ).addHelpText(
    'after',
    examples(
      'dlake engine create --name etl --size MEDIUM_V1 --max-replicas 4 --auto-stop-delay 10m',
      'dlake engine create --name adhoc --max-concurrency 8 --cloud-tag team=bi --dry-run',
    ),
  );

const updateDeclaration = (engine: Command) =>
  addEngineOptions(
    engine
      .command('update')
      .description("Change an engine's settings or name; everything not given stays as it is")
      .argument('<engine>', 'engine id or name')
      .option('--name <name>', 'new name'),
  ).addHelpText(
    'after',
    examples(
      'dlake engine update etl --max-replicas 8',
      'dlake engine update etl --runtime-limit 2h --dry-run',
    ),
  );

const removeDeclaration = (engine: Command) =>
  engine
    .command('delete')
    .alias('rm')
    .description('Delete an engine (asks first on a terminal); rules must not route jobs to it')
    .argument('<engine>', 'engine id or name')
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText('after', examples('dlake engine delete adhoc', 'dlake engine delete adhoc --yes'));

/** `engine enable|disable ENGINE`: the same verb both ways. */
function stateVerb(action: 'enable' | 'disable'): Declare {
  return defineCommand(
    (engine: Command) =>
      engine
        .command(action)
        .description(action === 'enable' ? 'Enable an engine' : 'Disable an engine: it takes no new jobs')
        .argument('<engine>', 'engine id or name')
        .option('--dry-run', 'print the request instead of sending it')
        .addHelpText('after', examples(`dlake engine ${action} etl`)),
    (ctx, ref, opts) => setState(ctx, ref, action, opts),
  );
}

export const register = defineGroup([
  defineCommand(
    (engine: Command) =>
      engine
        .command('list')
        .alias('ls')
        .description("List the project's engines")
        .addHelpText('after', examples('dlake engine list', 'dlake engine list -o json --query "[].name"')),
    list,
  ),
  defineCommand(
    (engine: Command) =>
      engine
        .command('get')
        .description('Show an engine by id (a UUID) or by name')
        .argument('<engine>', 'engine id or name')
        .addHelpText('after', examples('dlake engine get default', 'dlake engine get etl -o json')),
    get,
  ),
  defineCommand(createDeclaration, create),
  defineCommand(updateDeclaration, update),
  defineCommand(removeDeclaration, remove),
  stateVerb('enable'),
  stateVerb('disable'),
  rules.register,
]);

function addEngineOptions<A extends unknown[], O extends Record<string, unknown>>(cmd: Command<A, O>) {
  return cmd
    .addOption(options.choiceOption('--size <size>', 'size of each replica', SIZES))
    .option('--min-replicas <n>', 'replicas kept running')
    .option('--max-replicas <n>', 'replicas it may grow to')
    .option('--max-concurrency <n>', 'jobs one replica runs at once')
    .option('--auto-stop-delay <duration>', 'idle time before a replica stops, e.g. 5m')
    .option('--queue-time-limit <duration>', 'longest wait of a job for a replica, e.g. 5m')
    .option('--runtime-limit <duration>', 'longest run time of a job, e.g. 2h (0: none)')
    .option('--drain-time-limit <duration>', 'time a stopping replica may finish its jobs, e.g. 10m')
    .option('--description <text>', 'description')
    .option(
      '--cloud-tag <key=value>',
      'a cloud tag of its instances (repeatable)',
      options.repeatable('--cloud-tag'),
    )
    .option('--dry-run', 'print the request instead of sending it');
}

/** The options `addEngineOptions` declares, typed as commander hands them over. */
type EngineOptionValues =
  ReturnType<typeof addEngineOptions<[], Record<never, never>>> extends Command<infer _A, infer O>
    ? O
    : never;

/** Engine sizes, smallest first (docs/api-facts.md §13.4). */
const SIZES = [
  'XX_SMALL_V1',
  'X_SMALL_V1',
  'SMALL_V1',
  'MEDIUM_V1',
  'LARGE_V1',
  'X_LARGE_V1',
  'XX_LARGE_V1',
  'XXX_LARGE_V1',
] as const;

/** The options in the API's units; a value that does not parse is a usage error before any request. */
function engineFields(opts: EngineOptionValues & { name?: string }): EngineFields {
  const whole = (v: string | undefined, flag: string) =>
    v === undefined ? undefined : options.wholeNumber(flag)(v);
  const seconds = (v: string | undefined, flag: string) =>
    v === undefined ? undefined : Math.round(options.duration(flag, { positive: false })(v) / 1000);
  const tags = opts.cloudTag?.length
    ? opts.cloudTag.map((t) => {
        const at = t.indexOf('=');
        if (at <= 0) throw new UsageError(`--cloud-tag "${t}" is not KEY=VALUE`);
        return { key: t.slice(0, at), value: t.slice(at + 1) };
      })
    : undefined;
  return {
    name: opts.name,
    size: opts.size === undefined ? undefined : options.choose('--size', opts.size, SIZES),
    minReplicas: whole(opts.minReplicas, '--min-replicas'),
    maxReplicas: whole(opts.maxReplicas, '--max-replicas'),
    maxConcurrency: whole(opts.maxConcurrency, '--max-concurrency'),
    autoStopDelaySeconds: seconds(opts.autoStopDelay, '--auto-stop-delay'),
    queueTimeLimitSeconds: seconds(opts.queueTimeLimit, '--queue-time-limit'),
    runtimeLimitSeconds: seconds(opts.runtimeLimit, '--runtime-limit'),
    drainTimeLimitSeconds: seconds(opts.drainTimeLimit, '--drain-time-limit'),
    description: opts.description,
    cloudTags: tags,
  };
}

const secs = (s: number | undefined): string => (s === undefined ? '' : formatDuration(s * 1000));

const ENGINE_FIELDS: FieldSpec<Engine>[] = [
  { field: 'id' },
  { field: 'name' },
  { field: 'state' },
  { field: 'size' },
  { field: 'activeReplicas' },
  { field: 'minReplicas' },
  { field: 'maxReplicas' },
  { field: 'maxConcurrency' },
  { field: 'autoStopDelaySeconds', label: 'autoStopDelay', value: (e) => secs(e.autoStopDelaySeconds) },
  { field: 'queueTimeLimitSeconds', label: 'queueTimeLimit', value: (e) => secs(e.queueTimeLimitSeconds) },
  { field: 'runtimeLimitSeconds', label: 'runtimeLimit', value: (e) => secs(e.runtimeLimitSeconds) },
  { field: 'drainTimeLimitSeconds', label: 'drainTimeLimit', value: (e) => secs(e.drainTimeLimitSeconds) },
  { field: 'description' },
  {
    field: 'cloudTags',
    value: (e) => (e.cloudTags ?? []).map((t) => `${t.key}=${t.value}`).join(', '),
  },
];

function printEngine(ctx: Context, engine: Engine): Promise<void> {
  return ctx.print(detail(engine, fieldRows(engine, ENGINE_FIELDS)));
}

async function setup(ctx: Context) {
  await requireHosted(ctx, 'engines');
  const api = await import('../../api/engines.js');
  return { api, client: await ctx.client() };
}

async function list(ctx: Context): Promise<void> {
  const { api, client } = await setup(ctx);
  const engines = await api.listEngines(client);
  await ctx.print({
    data: engines,
    view: {
      empty: 'No engines.',
      columns: [
        { header: 'NAME', value: (e: Engine) => e.name },
        { header: 'STATE', value: (e: Engine) => e.state },
        { header: 'SIZE', value: (e: Engine) => e.size },
        {
          header: 'REPLICAS',
          value: (e: Engine) => `${e.activeReplicas ?? 0} (${e.minReplicas ?? 0}-${e.maxReplicas ?? ''})`,
        },
        { header: 'CONCURRENCY', value: (e: Engine) => e.maxConcurrency },
        { header: 'AUTO STOP', value: (e: Engine) => secs(e.autoStopDelaySeconds) },
        { header: 'ID', value: (e: Engine) => e.id },
      ],
    },
  });
}

async function get(ctx: Context, ref: string): Promise<void> {
  const { api, client } = await setup(ctx);
  await printEngine(ctx, await api.resolveEngine(client, ref));
}

async function create(ctx: Context, opts: OptionsOf<typeof createDeclaration>): Promise<void> {
  const fields = engineFields(opts);
  const { api } = await setup(ctx);
  const body = Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined),
  ) as EngineFields & {
    name: string;
  };
  if (!body.name?.trim()) throw new UsageError('the engine name is empty');
  const created = await send(
    ctx,
    { request: api.createEngineRequest(body), send: (c) => api.createEngine(c, body) },
    { dryRun: opts.dryRun },
  );
  if (!created) return;
  await printEngine(ctx, created);
  ctx.ui.notice(`Created engine ${created.name} (id ${created.id}).`);
}

async function update(ctx: Context, ref: string, opts: OptionsOf<typeof updateDeclaration>): Promise<void> {
  const fields = engineFields(opts);
  if (Object.values(fields).every((v) => v === undefined)) {
    throw new UsageError('nothing to change', {
      hint: 'give --name, --size, --min-replicas, --max-replicas, --max-concurrency, --auto-stop-delay, --queue-time-limit, --runtime-limit, --drain-time-limit, --description or --cloud-tag',
    });
  }
  if (fields.name !== undefined && !fields.name.trim()) throw new UsageError('the new name is empty');
  const { api, client } = await setup(ctx);
  const current = await api.resolveEngine(client, ref);
  const merged = api.mergeEngine(current, fields);
  if (merged.changed.length === 0) {
    ctx.ui.notice(`Nothing to change: engine ${current.name} is already as asked.`);
    if (!opts.dryRun) await printEngine(ctx, current);
    return;
  }
  const updated = await send(
    ctx,
    { request: api.updateEngineRequest(merged.body), send: (c) => api.updateEngine(c, merged.body) },
    { dryRun: opts.dryRun },
  );
  if (!updated) return;
  await printEngine(ctx, updated);
  ctx.ui.notice(`Updated engine ${updated.name}: ${merged.changed.join(', ')}.`);
}

async function remove(ctx: Context, ref: string, opts: OptionsOf<typeof removeDeclaration>): Promise<void> {
  const { api, client } = await setup(ctx);
  const engine = await api.resolveEngine(client, ref);
  if (opts.dryRun) return printDryRun(ctx, api.deleteEngineRequest(engine.id));
  await confirmDestructive(ctx, `delete engine "${engine.name}" (id ${engine.id})?`, opts.yes);
  await api.deleteEngine(client, engine.id);
  ctx.ui.notice(`Deleted engine ${engine.name}.`);
}

async function setState(
  ctx: Context,
  ref: string,
  action: 'enable' | 'disable',
  opts: { dryRun?: boolean },
): Promise<void> {
  const { api, client } = await setup(ctx);
  const engine = await api.resolveEngine(client, ref);
  await send(
    ctx,
    {
      request: api.setEngineStateRequest(engine.id, action),
      send: (c) => api.setEngineState(c, engine.id, action),
    },
    { dryRun: opts.dryRun },
  );
  if (opts.dryRun) return;
  ctx.ui.notice(`${action === 'enable' ? 'Enabled' : 'Disabled'} engine ${engine.name}.`);
}
