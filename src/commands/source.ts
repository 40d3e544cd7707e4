// `dlake source list|get|types|create|update|delete`: sources and their per-type configs. Configs are checked
// against the type's fields before anything is sent; secrets come only from files, and are never printed.
import type { Command } from 'commander';
import type { CatalogEntity } from '../api/schemas.js';
import type { SourceTypeInfo } from '../api/source-types.js';
import { EXISTING_SECRET_VALUE } from '../constants.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { View } from '../output/view.js';
import type { Runtime } from '../runtime.js';
import { formatPath } from '../util/catalog-ref.js';
import { confirmDestructive, examples, printDryRun, readJsonArgument } from './common.js';

interface ConfigOptions {
  configFile?: string;
  set?: string[];
  dryRun?: boolean;
}
interface CreateOptions extends ConfigOptions {
  type: string;
}
interface DeleteOptions {
  yes?: boolean;
  dryRun?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function register(program: Command, rt: Runtime): void {
  const source = program.command('source').description('List, inspect, create and configure sources');

  source
    .command('list')
    .alias('ls')
    .description('List the sources with their type and health')
    .addHelpText('after', examples('dlake source list', 'dlake source list -o json --query "[].config"'))
    .action(rt.action(list));

  source
    .command('get')
    .description('Show a source and its config (secrets as the service shows them, never their values)')
    .argument('<name>', 'source name')
    .addHelpText('after', examples('dlake source get Samples', 'dlake source get warehouse -o json'))
    .action(rt.action(get));

  source
    .command('types')
    .description('List the source types, or the config fields of one type')
    .argument('[type]', 'a type code, e.g. POSTGRES')
    .addHelpText(
      'after',
      examples('dlake source types', 'dlake source types POSTGRES', 'dlake source types S3 -o json'),
    )
    .action(rt.action(types));

  source
    .command('create')
    .description('Create a source; its config is checked against the type before it is sent')
    .argument('<name>', 'source name')
    .requiredOption('--type <type>', 'source type code (see: dlake source types)')
    .option(
      '--config-file <file>',
      'config fields as a JSON object, secrets included; - reads standard input',
    )
    .option(
      '--set <key=value>',
      'a config field, coerced to its type (repeatable; not for secrets)',
      collect,
      [],
    )
    .option('--dry-run', 'print the request that would be sent, secrets redacted, and send nothing')
    .addHelpText(
      'after',
      examples(
        'dlake source create lake --type NAS --set path=/data/lake',
        'dlake source create pg --type POSTGRES --config-file pg.json   # password in the file',
        'dlake source create es --type ELASTIC --set hostList=es1:9200,es2:9200 --set authenticationType=ANONYMOUS --dry-run',
      ),
    )
    .action(rt.action(create));

  source
    .command('update')
    .description('Change a source config; secrets you leave out keep their stored values')
    .argument('<name>', 'source name')
    .option(
      '--config-file <file>',
      'fields to change as a JSON object (null removes one); - reads standard input',
    )
    .option('--set <key=value>', 'a config field to change (repeatable; not for secrets)', collect)
    .option('--dry-run', 'print the request that would be sent, secrets redacted, and send nothing')
    .addHelpText(
      'after',
      examples(
        'dlake source update pg --set fetchSize=500',
        'echo \'{"password": "..."}\' | dlake source update pg --config-file -',
        'dlake source update s3 --set propertyList.fs.s3a.path.style.access=true --dry-run',
      ),
    )
    .action(rt.action(update));

  source
    .command('delete')
    .alias('rm')
    .description('Delete a source')
    .argument('<name>', 'source name')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the request that would be sent, and send nothing')
    .addHelpText(
      'after',
      examples(
        'dlake source delete old_pg',
        'dlake source delete old_pg --yes',
        'dlake source rm old_pg --dry-run',
      ),
    )
    .action(rt.action(remove));
}

// ── Reading ─────────────────────────────────────────────────────────────────────────────────────────────

const SOURCE_VIEW: View<CatalogEntity> = {
  empty: 'No sources. Create one with `dlake source create NAME --type TYPE`.',
  columns: [
    { header: 'NAME', value: (s) => formatPath([s.name ?? s.id]) },
    { header: 'TYPE', value: (s) => s.type },
    { header: 'STATE', value: (s) => s.state?.status },
    { header: 'ID', value: (s) => s.id },
  ],
};

async function list(ctx: Context): Promise<void> {
  const { listSources } = await import('../api/sources.js');
  const sources = await listSources(await ctx.client());
  await ctx.print({ data: sources, view: SOURCE_VIEW });
}

interface Detail {
  key: string;
  value: unknown;
}

async function get(ctx: Context, name: string): Promise<void> {
  const [{ getSource }, types] = await Promise.all([
    import('../api/sources.js'),
    import('../api/source-types.js'),
  ]);
  const s = await getSource(await ctx.client(), name);
  const secrets = new Set(
    types
      .findSourceType(s.type ?? '')
      ?.fields.filter((f) => f.secret)
      .map((f) => f.name) ?? [],
  );
  const rows: Detail[] = [
    { key: 'name', value: s.name },
    { key: 'type', value: s.type },
    { key: 'id', value: s.id },
    { key: 'tag', value: s.tag },
    { key: 'createdAt', value: s.createdAt },
    { key: 'state', value: s.state?.status },
    ...(s.state?.messages ?? []).map((m) => ({ key: '', value: `${m.level}: ${m.message}` })),
    ...Object.entries(s.config ?? {}).map(([k, v]) => ({
      key: `config.${k}`,
      // The service shows stored secrets as the placeholder; anything else in a secret field is not printed.
      value: secrets.has(k) && v !== EXISTING_SECRET_VALUE && v !== '' ? '[hidden]' : v,
    })),
    ...Object.entries((s.metadataPolicy as Record<string, unknown> | undefined) ?? {}).map(([k, v]) => ({
      key: `metadataPolicy.${k}`,
      value: v,
    })),
  ];
  await ctx.print({
    data: s,
    rows: rows.filter((r) => r.value !== undefined),
    view: {
      columns: [
        { header: 'FIELD', value: (r: Detail) => r.key },
        { header: 'VALUE', value: (r: Detail) => r.value },
      ],
    },
  });
}

async function types(ctx: Context, code: string | undefined): Promise<void> {
  const { SOURCE_TYPES, getSourceType } = await import('../api/source-types.js');
  if (code === undefined) {
    const all = Object.values(SOURCE_TYPES).map(typeSummary);
    return ctx.print({
      data: all,
      view: {
        columns: [
          { header: 'TYPE', value: (t: TypeSummary) => t.code },
          { header: 'NAME', value: (t: TypeSummary) => t.label },
          { header: 'NOTE', value: (t: TypeSummary) => note(t) },
        ],
      },
    });
  }
  const info = getSourceType(code);
  await ctx.print({
    data: { ...typeSummary(info), fields: info.fields },
    rows: info.fields,
    view: {
      columns: [
        { header: 'FIELD', value: (f) => f.name },
        { header: 'TYPE', value: (f) => f.type },
        { header: 'REQUIRED', value: (f) => (f.required ? 'yes' : '') },
        { header: 'SECRET', value: (f) => (f.secret ? 'yes' : '') },
        { header: 'VALUES', value: (f) => f.enum?.join(' | ') },
        { header: 'DESCRIPTION', value: (f) => f.description },
      ],
    },
  });
}

interface TypeSummary {
  code: string;
  label: string;
  deprecated?: string;
  aliasOf?: string;
}

function typeSummary(t: SourceTypeInfo): TypeSummary {
  return {
    code: t.code,
    label: t.label,
    ...(t.deprecated ? { deprecated: t.deprecated } : {}),
    ...(t.aliasOf ? { aliasOf: t.aliasOf } : {}),
  };
}

function note(t: TypeSummary): string {
  if (t.deprecated) return `deprecated: ${t.deprecated}`;
  if (t.aliasOf) return `another spelling of ${t.aliasOf}`;
  return '';
}

// ── Writing ─────────────────────────────────────────────────────────────────────────────────────────────

/** `--config-file F|-`: a JSON object of config fields. */
async function readConfigFile(ctx: Context, file: string | undefined): Promise<Record<string, unknown>> {
  if (file === undefined) return {};
  const value = await readJsonArgument(file === '-' ? '@-' : `@${file}`, ctx.streams.stdin, '--config-file');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const where = file === '-' ? 'standard input' : file;
    throw new UsageError(`--config-file (${where}) must hold a JSON object of config fields`, {
      hint: 'e.g. {"hostname": "db.example.com", "port": 5432, "password": "..."}',
    });
  }
  return value as Record<string, unknown>;
}

async function create(ctx: Context, name: string, opts: CreateOptions): Promise<void> {
  const [types, { applySetPairs }, sources, catalog] = await Promise.all([
    import('../api/source-types.js'),
    import('../util/set-pairs.js'),
    import('../api/sources.js'),
    import('../api/catalog.js'),
  ]);
  const info = types.getSourceType(opts.type);
  if (info.deprecated) {
    throw new UsageError(`source type ${info.code} is deprecated: ${info.deprecated}`, {
      hint: 'see the current types with: dlake source types',
    });
  }
  const given = applySetPairs(info.code, await readConfigFile(ctx, opts.configFile), opts.set ?? []);
  const config = types.validateSourceConfig(info.code, given, { forCreate: true });
  const secretFields = types.secretFieldNames(info.code);
  const entity = sources.newSourceEntity(name, info.code, config);
  if (opts.dryRun) return printDryRun(ctx, catalog.createRequest(entity, secretFields));
  const created = await catalog.create(await ctx.client(), entity, secretFields);
  ctx.ui.notice(`Created source ${formatPath([name])} (${info.code}).`);
  await ctx.print({ data: created, rows: [created], view: SOURCE_VIEW });
}

async function update(ctx: Context, name: string, opts: ConfigOptions): Promise<void> {
  if (opts.configFile === undefined && !opts.set) {
    throw new UsageError('nothing to change: give --config-file or --set', {
      hint: `e.g. dlake source update ${name} --set fetchSize=500`,
    });
  }
  const patch = await readConfigFile(ctx, opts.configFile);
  const [types, sources, catalog] = await Promise.all([
    import('../api/source-types.js'),
    import('../api/sources.js'),
    import('../api/catalog.js'),
  ]);
  const client = await ctx.client();
  const current = await sources.getSource(client, name);
  const type = current.type ?? '';
  const merged = sources.mergeSourceConfig(type, current.config ?? {}, patch, opts.set ?? []);
  const config = types.validateSourceConfig(type, merged, { forCreate: false });
  const secretFields = types.secretFieldNames(type);
  const body = sources.sourceUpdateBody(current, config);
  if (opts.dryRun) return printDryRun(ctx, catalog.updateRequest(current.id, body, secretFields));
  const updated = await catalog.update(client, current.id, body, secretFields);
  ctx.ui.notice(`Updated source ${formatPath([name])} (tag ${current.tag} → ${updated.tag}).`);
  await ctx.print({ data: updated, rows: [updated], view: SOURCE_VIEW });
}

async function remove(ctx: Context, name: string, opts: DeleteOptions): Promise<void> {
  const [sources, catalog] = await Promise.all([import('../api/sources.js'), import('../api/catalog.js')]);
  const client = await ctx.client();
  const current = await sources.getSource(client, name);
  if (opts.dryRun) return printDryRun(ctx, catalog.removeRequest(current.id, current.tag));
  await confirmDestructive(ctx, `delete source ${formatPath([name])} and its datasets?`, opts.yes);
  await catalog.remove(client, current.id, current.tag);
  ctx.ui.notice(`Deleted source ${formatPath([name])}.`);
}
