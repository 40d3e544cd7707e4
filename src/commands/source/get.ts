// `dlake source get NAME`: a source and its config, secrets as the service shows them, never their values.
import type { Command } from '@commander-js/extra-typings';
import { EXISTING_SECRET_VALUE } from '../../constants.js';
import type { Context } from '../../context.js';
import { type Detail, detail } from '../../output/view.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';

const declaration = (source: Command) =>
  source
    .command('get')
    .description('Show a source and its config (secrets as the service shows them, never their values)')
    .argument('<name>', 'source name')
    .addHelpText('after', examples('dlake source get Samples', 'dlake source get warehouse -o json'));

export const register = defineCommand(declaration, get);

async function get(ctx: Context, name: string): Promise<void> {
  const [{ getSource }, types] = await Promise.all([
    import('../../api/sources.js'),
    import('../../api/source-types.js'),
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
  await ctx.print(detail(s, rows));
}
