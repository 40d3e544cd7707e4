// What the catalog verbs that write share: reading the JSON they send, and source configs checked per type.
import type { Context } from '../../context.js';
import { readJsonArgument } from '../common.js';

/** `--file F|-` as JSON; its label names the file in messages. */
export async function readJsonFile(
  ctx: Context,
  file: string,
  flag: string,
): Promise<{ value: unknown; label: string }> {
  const value = await readJsonArgument(file === '-' ? '@-' : `@${file}`, ctx.streams.stdin, flag);
  return { value, label: `${flag} (${file === '-' ? 'standard input' : file})` };
}

/** A source config in an entity is checked per type when dlake knows the type (others go as they are). */
export async function sourceSecrets(
  entity: Record<string, unknown>,
  forCreate: boolean,
): Promise<string[] | undefined> {
  if (entity.entityType !== 'source' || typeof entity.type !== 'string') return undefined;
  const types = await import('../../api/source-types.js');
  if (!types.findSourceType(entity.type)) return undefined;
  entity.config = types.validateSourceConfig(entity.type, entity.config ?? {}, { forCreate });
  return types.secretFieldNames(entity.type);
}
