// `dlake profile set NAME`: create or change a profile from the global --url, --auth-url and -o values.
import type { Command } from '@commander-js/extra-typings';
import { PROFILE_NAME, PROFILE_NAME_HINT, type Profile } from '../../config/schema.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { OUTPUT_FORMATS } from '../../global-options.js';
import { normalizeServiceUrl } from '../../util/url.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';

const declaration = (profile: Command) =>
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
    );

export const register = defineCommand(declaration, set);

async function set(ctx: Context, name: string): Promise<void> {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, { hint: PROFILE_NAME_HINT });
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

function checkUrl(value: string, flag: string): string {
  return normalizeServiceUrl(value, flag);
}
