// `dlake catalog ls|get|tree|create|update|delete|refresh|tags|wiki`: browse and write catalog entities.
// A REF is a path (`Sales/"a/b"/view`) or an id (a UUID, or any text with --id); see cli.md.
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { WriteRequest } from '../api/catalog.js';
import type { CatalogEntity, CatalogSummary } from '../api/schemas.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../output/prompt.js';
import type { View } from '../output/view.js';
import type { Runtime } from '../runtime.js';
import { type CatalogRef, formatPath, parseRefWithId } from '../util/catalog-ref.js';
import { confirmDestructive, examples, printDryRun, readJsonArgument } from './common.js';

const DEFAULT_CONCURRENCY = 8;

interface RefOptions {
  id?: boolean;
}
interface ListOptions extends RefOptions {
  pageSize?: number;
}
interface GetOptions extends RefOptions {
  include?: string[];
  exclude?: string[];
}
interface TreeOptions extends ListOptions {
  depth?: number;
  concurrency?: number;
}
interface WriteOptions extends RefOptions {
  file: string;
  dryRun?: boolean;
}
interface DeleteOptions extends RefOptions {
  yes?: boolean;
  dryRun?: boolean;
}
interface TagsOptions extends RefOptions {
  set?: string[];
  clear?: boolean;
  dryRun?: boolean;
}
interface WikiOptions extends RefOptions {
  setFile?: string;
  dryRun?: boolean;
}

export function register(program: Command, rt: Runtime): void {
  const catalog = program
    .command('catalog')
    .description('Browse, read and write catalog entities (spaces, folders, datasets)')
    .addHelpText(
      'after',
      `
A REF is a path or an id. A path is /-separated components; a component that contains / or starts
with " is written in double quotes, inner quotes doubled: Sales/"a/b", Sales/"top ""best"".v2".
A UUID is an id; --id makes any text an id (e.g. service:/Samples/sales).`,
    );

  catalog
    .command('ls')
    .description('List the top-level containers, or the children of REF (all pages)')
    .argument('[ref]', 'path or id of a container')
    .addOption(idOption())
    .addOption(pageSizeOption())
    .addHelpText(
      'after',
      examples('dlake catalog ls', 'dlake catalog ls Samples/sales', 'dlake catalog ls Sales -o json'),
    )
    .action(rt.action(ls));

  catalog
    .command('get')
    .description('Show a catalog entity in full')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option('--include <attr>', 'add a non-default attribute, e.g. permissions (repeatable)', collect)
    .option('--exclude <attr>', 'drop an attribute, e.g. children (repeatable)', collect)
    .addHelpText(
      'after',
      examples(
        'dlake catalog get Sales/reports/q1 -o json',
        'dlake catalog get \'Samples/"2024/25".csv\' --exclude children',
        'dlake catalog get --id 7f1c2a9e-0d51-4d8e-9a3b-2b7f1f0f6c11',
      ),
    )
    .action(rt.action(get));

  catalog
    .command('tree')
    .description('Show containers and datasets as a tree, listing containers concurrently')
    .argument('[ref]', 'path or id of the container to start from (default: the top level)')
    .addOption(idOption())
    .addOption(new Option('--depth <n>', 'levels to show (default: all)').argParser(intOption('--depth', 1)))
    .addOption(
      new Option('--concurrency <n>', `listing requests at once (default ${DEFAULT_CONCURRENCY})`).argParser(
        intOption('--concurrency', 1, 64),
      ),
    )
    .addOption(pageSizeOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog tree',
        'dlake catalog tree Samples --depth 2',
        'dlake catalog tree Sales -o json',
      ),
    )
    .action(rt.action(tree));

  catalog
    .command('create')
    .description(
      'Create a space, folder, view or source from JSON; a PHYSICAL_DATASET promotes a file or folder',
    )
    .requiredOption('--file <file>', 'the entity as JSON; - reads standard input')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'echo \'{"entityType": "space", "name": "Sales"}\' | dlake catalog create --file -',
        'dlake catalog create --file view.json   # {"entityType": "dataset", "type": "VIRTUAL_DATASET", "path": [...], "sql": "..."}',
        'dlake catalog create --file promote.json --dry-run',
      ),
    )
    .action(rt.action(create));

  catalog
    .command('update')
    .description(
      "Change an entity: the file's fields are merged into the current entity and sent with its tag",
    )
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .requiredOption(
      '--file <file>',
      'changed fields as JSON (a "tag" in it is sent as given); - reads standard input',
    )
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'echo \'{"sql": "SELECT * FROM Samples.sales"}\' | dlake catalog update Sales/v_sales --file -',
        'dlake catalog get Sales/v_sales -o json > v.json && $EDITOR v.json && dlake catalog update Sales/v_sales --file v.json',
        'dlake catalog update Sales/v_sales --file v.json --dry-run',
      ),
    )
    .action(rt.action(update));

  catalog
    .command('delete')
    .alias('rm')
    .description(
      'Delete an entity (a space or folder with all its contents; a promoted table reverts to its file)',
    )
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog delete Sales/old_view',
        'dlake catalog delete Scratch --yes',
        'dlake catalog rm Sales/x --dry-run',
      ),
    )
    .action(rt.action(remove));

  catalog
    .command('refresh')
    .description('Refresh the reflections that depend on a physical dataset')
    .argument('<ref>', 'path or id of a physical dataset (table)')
    .addOption(idOption())
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog refresh Samples/sales',
        'dlake catalog refresh Samples/events.parquet --dry-run',
      ),
    )
    .action(rt.action(refresh));

  catalog
    .command('tags')
    .description('Show the tags of a source, space or dataset, or replace them (sending the current version)')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option(
      '--set <tag>',
      'the new tags, replacing the current ones (repeatable)',
      (v: string, p: string[] = []) => [...p, v],
    )
    .option('--clear', 'remove all tags')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog tags Sales/v_sales',
        'dlake catalog tags Sales/v_sales --set finance --set gold',
        'dlake catalog tags Sales/v_sales --clear',
      ),
    )
    .action(rt.action(tags));

  catalog
    .command('wiki')
    .description('Show the wiki text of an entity, or replace it (sending the current version)')
    .argument('<ref>', 'path or id')
    .addOption(idOption())
    .option('--set-file <file>', 'the new text (Markdown); - reads standard input')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'dlake catalog wiki Sales',
        'dlake catalog wiki Sales --set-file README.md',
        'echo "# Sales" | dlake catalog wiki Sales --set-file -',
      ),
    )
    .action(rt.action(wiki));
}

// ── Options ─────────────────────────────────────────────────────────────────────────────────────────────

const idOption = () => new Option('--id', 'take REF as an id, even when it is not a UUID');
const dryRunOption = () => new Option('--dry-run', 'print the request that would be sent, and send nothing');
const pageSizeOption = () =>
  new Option('--page-size <n>', 'children per listing request (default 500)').argParser(
    intOption('--page-size', 1, 10_000),
  );

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter((v) => v !== '')];
}

function intOption(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
      throw new UsageError(`${flag} "${value}" is not a whole number ${range}`);
    }
    return n;
  };
}

const refOf = (input: string, opts: RefOptions): CatalogRef => parseRefWithId(input, Boolean(opts.id));

// ── Views ───────────────────────────────────────────────────────────────────────────────────────────────

/** What an admin calls the kind of an item: SPACE, SOURCE, FOLDER, HOME, VIRTUAL, PROMOTED, DIRECT, FILE. */
function summaryType(s: CatalogSummary): string {
  return s.containerType ?? s.datasetType ?? s.type;
}

function entityType(e: CatalogEntity): string {
  if (e.entityType !== 'dataset') return e.entityType.toUpperCase();
  if (e.type === 'VIRTUAL_DATASET') return 'VIRTUAL';
  // Tables promoted from files carry their format; other physical datasets are direct (JDBC and the like).
  return e.format ? 'PROMOTED' : 'DIRECT';
}

/** The kind of an entity in a sentence: "view Sales/v", "table Samples/sales", "folder Sales/reports". */
function kindOf(e: CatalogEntity): string {
  if (e.entityType !== 'dataset') return e.entityType;
  return e.type === 'VIRTUAL_DATASET' ? 'view' : 'table';
}

const SUMMARY_VIEW: View<CatalogSummary> = {
  columns: [
    { header: 'PATH', value: (s) => formatPath(s.path) },
    { header: 'TYPE', value: summaryType },
    { header: 'ID', value: (s) => s.id },
    { header: 'TAG', value: (s) => s.tag },
  ],
};

function entityView(pathOf: (e: CatalogEntity) => string[]): View<CatalogEntity> {
  return {
    columns: [
      { header: 'PATH', value: (e) => formatPath(pathOf(e)) },
      { header: 'TYPE', value: entityType },
      { header: 'ID', value: (e) => e.id },
      { header: 'TAG', value: (e) => e.tag },
    ],
  };
}

interface Detail {
  key: string;
  value: unknown;
}
const DETAIL_VIEW: View<Detail> = {
  columns: [
    { header: 'FIELD', value: (r) => r.key },
    { header: 'VALUE', value: (r) => r.value },
  ],
};

/** The table form of `get`: what identifies the entity, then what matters for its kind. */
function detailRows(e: CatalogEntity, path: string[]): Detail[] {
  const rows: Detail[] = [
    { key: 'path', value: formatPath(path) },
    { key: 'type', value: entityType(e) },
    { key: 'id', value: e.id },
    { key: 'tag', value: e.tag },
    { key: 'createdAt', value: e.createdAt },
  ];
  if (e.entityType === 'source') {
    rows.push({ key: 'sourceType', value: e.type });
    rows.push({ key: 'state', value: e.state?.status });
    for (const m of e.state?.messages ?? []) rows.push({ key: '', value: `${m.level}: ${m.message}` });
    for (const [k, v] of Object.entries(e.config ?? {})) rows.push({ key: `config.${k}`, value: v });
  }
  if (e.entityType === 'dataset') {
    if (e.sql !== undefined) rows.push({ key: 'sql', value: e.sql });
    if (e.sqlContext) rows.push({ key: 'sqlContext', value: formatPath(e.sqlContext) });
    const format = e.format as { type?: string } | undefined;
    if (format?.type) rows.push({ key: 'format', value: format.type });
    for (const f of e.fields ?? []) rows.push({ key: `field ${f.name}`, value: f.type.name });
  }
  if (e.children) {
    const more = e.nextPageToken ? ' (more: dlake catalog ls lists all)' : '';
    rows.push({ key: 'children', value: `${e.children.length}${more}` });
  }
  return rows.filter((r) => r.value !== undefined);
}

// ── Reading ─────────────────────────────────────────────────────────────────────────────────────────────

async function ls(ctx: Context, refArg: string | undefined, opts: ListOptions): Promise<void> {
  const ref = refArg === undefined ? undefined : refOf(refArg, opts);
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  if (!ref) {
    const items = await api.listTopLevel(client);
    return ctx.print({ data: items, view: { ...SUMMARY_VIEW, empty: 'The catalog is empty.' } });
  }
  const { entity, children } = await api.listChildren(client, ref, { pageSize: opts.pageSize });
  const path = api.entityPath(entity);
  if (!api.isContainerEntity(entity)) {
    // Like `ls FILE`: a dataset or file lists as itself.
    const { children: _, ...item } = entity;
    return ctx.print({ data: [item], view: entityView(api.entityPath) });
  }
  await ctx.print({ data: children, view: { ...SUMMARY_VIEW, empty: `${formatPath(path)} is empty.` } });
}

async function get(ctx: Context, refArg: string, opts: GetOptions): Promise<void> {
  const ref = refOf(refArg, opts);
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  const entity = await api.resolveRef(client, ref, { include: opts.include, exclude: opts.exclude });
  await ctx.print({ data: entity, rows: detailRows(entity, api.entityPath(entity)), view: DETAIL_VIEW });
}

interface TreeRow {
  level: number;
  path: string[];
  type: string;
  id: string;
}

async function tree(ctx: Context, refArg: string | undefined, opts: TreeOptions): Promise<void> {
  const ref = refArg === undefined ? undefined : refOf(refArg, opts);
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  const spinner = ctx.format === 'table' ? await ctx.ui.spinner('Listing the catalog…') : undefined;
  const walk = {
    depth: opts.depth,
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    pageSize: opts.pageSize,
    onListed: (n: number) => spinner?.update(`Listing the catalog… ${n} containers`),
  };
  const rows: TreeRow[] = [];
  const flatten = (nodes: import('../api/catalog.js').TreeNode[], level: number) => {
    for (const n of nodes) {
      rows.push({ level, path: n.path, type: summaryType(n), id: n.id });
      if (n.children) flatten(n.children, level + 1);
    }
  };
  let data: unknown;
  try {
    if (ref) {
      const root = await api.resolveRef(client, ref, { exclude: ['children'] });
      const nodes = api.isContainerEntity(root) ? await api.walkTree(client, { id: root.id }, walk) : [];
      const { nextPageToken: _, ...rootFields } = root;
      data = api.isContainerEntity(root) ? { ...rootFields, children: nodes } : rootFields;
      rows.push({ level: 0, path: api.entityPath(root), type: entityType(root), id: root.id });
      flatten(nodes, 1);
    } else {
      const nodes = await api.walkTree(client, { roots: await api.listTopLevel(client) }, walk);
      data = nodes;
      flatten(nodes, 0);
    }
  } finally {
    spinner?.stop();
  }
  // The table indents each path under its parent; csv keeps plain paths and says the level instead.
  const indent = ctx.format === 'table';
  await ctx.print({
    data,
    rows,
    view: {
      empty: 'The catalog is empty.',
      columns: [
        { header: 'PATH', value: (r: TreeRow) => (indent ? '  '.repeat(r.level) : '') + formatPath(r.path) },
        { header: 'TYPE', value: (r: TreeRow) => r.type },
        { header: 'ID', value: (r: TreeRow) => r.id },
        ...(indent ? [] : [{ header: 'LEVEL', value: (r: TreeRow) => r.level }]),
      ],
    },
  });
}

// ── Writing ─────────────────────────────────────────────────────────────────────────────────────────────

/** `--file F|-` as JSON; its label names the file in messages. */
async function readJsonFile(
  ctx: Context,
  file: string,
  flag: string,
): Promise<{ value: unknown; label: string }> {
  const value = await readJsonArgument(file === '-' ? '@-' : `@${file}`, ctx.streams.stdin, flag);
  return { value, label: `${flag} (${file === '-' ? 'standard input' : file})` };
}

/** A source config in an entity is checked per type when dlake knows the type (others go as they are). */
async function sourceSecrets(
  entity: Record<string, unknown>,
  forCreate: boolean,
): Promise<string[] | undefined> {
  if (entity.entityType !== 'source' || typeof entity.type !== 'string') return undefined;
  const types = await import('../api/source-types.js');
  if (!types.findSourceType(entity.type)) return undefined;
  entity.config = types.validateSourceConfig(entity.type, entity.config ?? {}, { forCreate });
  return types.secretFieldNames(entity.type);
}

async function send<T>(ctx: Context, dryRun: boolean | undefined, req: WriteRequest, act: () => Promise<T>) {
  if (dryRun) {
    await printDryRun(ctx, req);
    return undefined;
  }
  return act();
}

async function create(ctx: Context, opts: WriteOptions): Promise<void> {
  const { value, label } = await readJsonFile(ctx, opts.file, '--file');
  const api = await import('../api/catalog.js');
  const entity = api.checkNewEntity(value, label);
  const secretFields = await sourceSecrets(entity, true);
  const client = await ctx.client();
  const path = api.entityPath(entity as CatalogEntity);
  let created: CatalogEntity | undefined;
  if (entity.entityType === 'dataset' && entity.type === 'PHYSICAL_DATASET') {
    // A table is made by promoting the file or folder at its path (the service has no other way).
    const target = await api.getByPath(client, path, { exclude: ['children'] });
    created = await send(ctx, opts.dryRun, api.promoteRequest(target.id, entity), () =>
      api.promote(client, target.id, entity),
    );
  } else {
    created = await send(ctx, opts.dryRun, api.createRequest(entity, secretFields), () =>
      api.create(client, entity, secretFields),
    );
  }
  if (!created) return;
  ctx.ui.notice(`Created ${kindOf(created)} ${formatPath(api.entityPath(created))}.`);
  await ctx.print({ data: created, rows: [created], view: entityView(api.entityPath) });
}

async function update(ctx: Context, refArg: string, opts: WriteOptions): Promise<void> {
  const ref = refOf(refArg, opts);
  const { value, label } = await readJsonFile(ctx, opts.file, '--file');
  const api = await import('../api/catalog.js');
  const patch = api.checkEntityPatch(value, label);
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  if (patch.entityType !== undefined && patch.entityType !== current.entityType) {
    throw new UsageError(`${label} is a ${patch.entityType}, but ${path} is a ${current.entityType}`);
  }
  if (patch.id !== undefined && patch.id !== current.id) {
    throw new UsageError(`${label} is entity ${patch.id}, but ${path} is ${current.id}`, {
      hint: 'remove "id" from the file or name the entity it belongs to',
    });
  }
  // A tag in the file is the version the user edited: sending it makes the service refuse a lost update.
  const body = api.editableFields({ ...current, ...patch, id: current.id, tag: patch.tag ?? current.tag });
  if (current.entityType === 'source' && patch.config && typeof current.type === 'string') {
    const types = await import('../api/source-types.js');
    if (types.findSourceType(current.type)) {
      const { keepSecrets } = await import('../api/sources.js');
      const secrets = types.secretFieldNames(current.type);
      body.config = keepSecrets(
        current.config ?? {},
        patch.config as Record<string, unknown>,
        body.config as Record<string, unknown>,
        secrets,
      );
    }
  }
  const secretFields = await sourceSecrets(body, false);
  const updated = await send(ctx, opts.dryRun, api.updateRequest(current.id, body, secretFields), () =>
    api.update(client, current.id, body, secretFields),
  );
  if (!updated) return;
  ctx.ui.notice(`Updated ${path} (tag ${current.tag} → ${updated.tag}).`);
  await ctx.print({ data: updated, rows: [updated], view: entityView(api.entityPath) });
}

async function remove(ctx: Context, refArg: string, opts: DeleteOptions): Promise<void> {
  const ref = refOf(refArg, opts);
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const what = `${kindOf(current)} ${formatPath(api.entityPath(current))}`;
  const req = api.removeRequest(current.id, current.tag);
  if (opts.dryRun) return printDryRun(ctx, req);
  const contents = api.isContainerEntity(current) ? ' and everything in it' : '';
  await confirmDestructive(ctx, `delete ${what}${contents}?`, opts.yes);
  await api.remove(client, current.id, current.tag);
  ctx.ui.notice(`Deleted ${what}.`);
}

async function refresh(ctx: Context, refArg: string, opts: RefOptions & { dryRun?: boolean }): Promise<void> {
  const ref = refOf(refArg, opts);
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  if (current.entityType !== 'dataset' || current.type !== 'PHYSICAL_DATASET') {
    throw new UsageError(`${path} is a ${kindOf(current)}: only physical datasets (tables) are refreshed`, {
      hint: 'name a table (a promoted file or folder, or a table of a database source)',
    });
  }
  if (opts.dryRun) return printDryRun(ctx, api.refreshRequest(current.id));
  await api.refresh(client, current.id);
  ctx.ui.notice(`Requested a refresh of the reflections on ${path}.`);
}

/** The service's 400 for an entity that cannot have tags, said with the entity's path. */
function tagsRefused(what: string) {
  return (err: unknown): never => {
    if (err instanceof UsageError) {
      throw new UsageError(`${what}: ${err.message}`, {
        hint: 'tags belong on sources, spaces and datasets, not on folders, homes or files',
        details: err.details,
        moreInfo: err.moreInfo,
      });
    }
    throw err;
  };
}

async function tags(ctx: Context, refArg: string, opts: TagsOptions): Promise<void> {
  const ref = refOf(refArg, opts);
  if (opts.set && opts.clear) throw new UsageError('--set and --clear cannot be used together');
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  const writing = Boolean(opts.set || opts.clear);
  const refused = tagsRefused(writing ? `cannot tag ${path}` : `cannot read the tags of ${path}`);
  const existing = await api.getTags(client, current.id).catch(refused);
  const view = (empty: string) => ({ columns: [{ header: 'TAG', value: (t: string) => t }], empty });
  if (!writing) {
    const data = existing ?? { tags: [] };
    return ctx.print({ data, rows: data.tags, view: view(`${path} has no tags.`) });
  }
  const wanted = opts.clear ? [] : [...new Set(opts.set)];
  const saved = await send(ctx, opts.dryRun, api.setTagsRequest(current.id, wanted, existing?.version), () =>
    api.setTags(client, current.id, wanted, existing?.version).catch(refused),
  );
  if (!saved) return;
  ctx.ui.notice(wanted.length ? `Tagged ${path}: ${saved.tags.join(', ')}.` : `Removed the tags of ${path}.`);
  await ctx.print({ data: saved, rows: saved.tags, view: view('') });
}

async function readText(ctx: Context, file: string): Promise<string> {
  if (file === '-') return readStdin(ctx.streams.stdin);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function wiki(ctx: Context, refArg: string, opts: WikiOptions): Promise<void> {
  const ref = refOf(refArg, opts);
  const text = opts.setFile === undefined ? undefined : await readText(ctx, opts.setFile);
  const api = await import('../api/catalog.js');
  const client = await ctx.client();
  const current = await api.resolveRef(client, ref, { exclude: ['children'] });
  const path = formatPath(api.entityPath(current));
  const existing = await api.getWiki(client, current.id);
  if (text === undefined) {
    if (!existing) ctx.ui.notice(`${path} has no wiki text.`);
    const data = existing ?? { text: '' };
    // The text is Markdown: a table of it would be useless, so the table format prints it as it is.
    if (ctx.format === 'table' && !ctx.opts.query) {
      if (data.text) ctx.streams.stdout.write(data.text.endsWith('\n') ? data.text : `${data.text}\n`);
      return;
    }
    return ctx.print({ data });
  }
  const saved = await send(ctx, opts.dryRun, api.setWikiRequest(current.id, text, existing?.version), () =>
    api.setWiki(client, current.id, text, existing?.version),
  );
  if (!saved) return;
  ctx.ui.notice(`Saved the wiki of ${path} (version ${saved.version ?? 0}).`);
  await ctx.print({
    data: saved,
    rows: [saved],
    view: {
      columns: [
        { header: 'VERSION', value: (w: { version?: number }) => w.version },
        { header: 'CHARACTERS', value: (w: { text: string }) => w.text.length },
      ],
    },
  });
}
