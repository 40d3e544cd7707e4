// `dlake profile list|show|use|set|delete`: named connections (URL, auth URL, default output).
import type { Command } from 'commander';
import { isExpired } from '../auth/expiry.js';
import { OUTPUT_FORMATS, PROFILE_NAME, type Profile } from '../config/schema.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { examples } from './common.js';

export function register(program: Command, rt: Runtime): void {
  const profile = program.command('profile').description('Manage connection profiles');

  profile
    .command('list')
    .alias('ls')
    .description('List profiles (the current one is marked with *)')
    .addHelpText('after', examples('dlake profile list', 'dlake profile list -o json'))
    .action(rt.action(list));

  profile
    .command('show')
    .description('Show a profile (default: the one in force) and its stored token, without secrets')
    .argument('[name]', 'profile name')
    .addHelpText('after', examples('dlake profile show', 'dlake profile show prod -o json'))
    .action(rt.action(show));

  profile
    .command('use')
    .description('Make a profile the current one')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('dlake profile use prod'))
    .action(rt.action(use));

  profile
    .command('set')
    .description('Create or change a profile: takes the global --url, --auth-url and -o/--output values')
    .argument('<name>', 'profile name')
    .addHelpText(
      'after',
      examples(
        'dlake profile set prod --url https://lake.example.com',
        'dlake profile set prod --auth-url https://login.example.com -o json',
      ),
    )
    .action(rt.action(set));

  profile
    .command('delete')
    .alias('rm')
    .description('Delete a profile and its stored token')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('dlake profile delete old'))
    .action(rt.action(remove));
}

interface ProfileRow extends Profile {
  name: string;
  current: boolean;
  token: string;
}

function rowsOf(ctx: Context): ProfileRow[] {
  const { config, credentials } = ctx.snapshot();
  return Object.entries(config.profiles).map(([name, p]) => {
    const t = credentials.tokens[name];
    const token = !t
      ? 'none'
      : isExpired(t.expiresAt)
        ? `${t.kind} (expired)`
        : `${t.kind} via ${t.obtainedVia}`;
    return { name, current: config.currentProfile === name, token, ...p };
  });
}

async function list(ctx: Context): Promise<void> {
  const rows = rowsOf(ctx);
  await ctx.print({
    data: rows,
    view: {
      empty: 'No profiles. Create one with `dlake profile set NAME --url URL` or `dlake login --url URL`.',
      columns: [
        { header: '', value: (r: ProfileRow) => (r.current ? '*' : '') },
        { header: 'NAME', value: (r: ProfileRow) => r.name },
        { header: 'URL', value: (r: ProfileRow) => r.url },
        { header: 'AUTH', value: (r: ProfileRow) => r.authMethod },
        { header: 'USER', value: (r: ProfileRow) => r.username ?? r.clientId },
        { header: 'TOKEN', value: (r: ProfileRow) => r.token },
      ],
    },
  });
}

async function show(ctx: Context, name: string | undefined): Promise<void> {
  const wanted = name ?? ctx.settings().profileName.value;
  const row = rowsOf(ctx).find((r) => r.name === wanted);
  if (!row) throw unknownProfile(ctx, wanted);
  await ctx.print({ data: row });
}

async function use(ctx: Context, name: string): Promise<void> {
  await ctx.store.update((s) => {
    if (!s.config.profiles[name]) throw unknownProfile(ctx, name);
    s.config.currentProfile = name;
  });
  ctx.ui.notice(`Now using profile "${name}".`);
}

async function set(ctx: Context, name: string): Promise<void> {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, {
      hint: 'use letters, digits, ".", "_" and "-" (at most 64)',
    });
  }
  const { url, authUrl, output } = ctx.opts;
  const patch: Partial<Profile> = {};
  if (url) patch.url = checkUrl(url, '--url');
  if (authUrl) patch.authUrl = checkUrl(authUrl, '--auth-url');
  if (output) {
    if (!(OUTPUT_FORMATS as readonly string[]).includes(output))
      throw new UsageError(`unknown output format "${output}"`);
    patch.output = output as Profile['output'];
  }
  const snapshot = await ctx.store.update((s) => {
    const existing = s.config.profiles[name];
    if (!existing && !patch.url) {
      throw new UsageError(`profile "${name}" does not exist yet: give its URL`, {
        hint: `dlake profile set ${name} --url URL`,
      });
    }
    s.config.profiles[name] = { ...existing, ...patch };
    s.config.currentProfile ??= name;
  });
  const current = snapshot.config.currentProfile === name ? ' (current)' : '';
  ctx.ui.notice(`Saved profile "${name}"${current}.`);
}

async function remove(ctx: Context, name: string): Promise<void> {
  await ctx.store.update((s) => {
    if (!s.config.profiles[name]) throw unknownProfile(ctx, name);
    delete s.config.profiles[name];
    delete s.credentials.tokens[name];
    if (s.config.currentProfile === name) delete s.config.currentProfile;
  });
  ctx.ui.notice(`Deleted profile "${name}" and its stored token.`);
}

function unknownProfile(ctx: Context, name: string): UsageError {
  const known = Object.keys(ctx.snapshot().config.profiles);
  return new UsageError(`unknown profile "${name}"`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}`
      : 'create one with `dlake profile set NAME --url URL`',
  });
}

function checkUrl(value: string, flag: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return value.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`${flag} "${value}" is not an http(s) URL`);
  }
}
