// What the source verbs share: the table of sources, the --config-file reader and the unhealthy-state warning.
import type { CatalogEntity } from '../../api/schemas/catalog.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { View } from '../../output/view.js';
import { formatPath } from '../../util/catalog-ref.js';
import { readJsonArgument } from '../common.js';

export const SOURCE_VIEW: View<CatalogEntity> = {
  empty: 'No sources. Create one with `dlake source create NAME --type TYPE`.',
  columns: [
    { header: 'NAME', value: (s) => formatPath([s.name ?? s.id]) },
    { header: 'TYPE', value: (s) => s.type },
    { header: 'STATE', value: (s) => s.state?.status },
    { header: 'ID', value: (s) => s.id },
  ],
};

/**
 * The service accepts a source it cannot reach (a missing folder, a refused login) and reports it in the
 * source's state: a write that "succeeded" must not hide that. Exit status stays 0: the source exists.
 */
export function warnUnhealthy(ctx: Context, name: string, source: CatalogEntity, done: string): void {
  const state = source.state;
  // A state without a status (the tolerance policy: fields may be missing) says nothing to warn about.
  if (!state?.status || state.status.toLowerCase() === 'good') return;
  const messages = (state.messages ?? [])
    .map((m) => (m.message ?? '').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  ctx.ui.warn(
    `source ${formatPath([name])} was ${done}, but its state is ${state.status}${messages.length ? `: ${messages.join('; ')}` : ''}`,
  );
}

/** `--config-file F|-`: a JSON object of config fields. */
export async function readConfigFile(
  ctx: Context,
  file: string | undefined,
): Promise<Record<string, unknown>> {
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
