// `dlake source types [TYPE]`: the source types dlake knows, or the config fields of one.
import type { Command } from '@commander-js/extra-typings';
import type { FieldInfo, SourceTypeInfo } from '../../api/source-types.js';
import type { Context } from '../../context.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';

const declaration = (source: Command) =>
  source
    .command('types')
    .description('List the source types, or the config fields of one type')
    .argument('[type]', 'a type code, e.g. POSTGRES')
    .addHelpText(
      'after',
      examples('dlake source types', 'dlake source types POSTGRES', 'dlake source types S3 -o json'),
    );

export const register = defineCommand(declaration, types);

async function types(ctx: Context, code: string | undefined): Promise<void> {
  const { SOURCE_TYPES, getSourceType } = await import('../../api/source-types.js');
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
        { header: 'DESCRIPTION', value: (f) => [f.description, setSyntax(f)].filter(Boolean).join('; ') },
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

/** How a field of a list type is written with `--set`; undefined for the others. */
function setSyntax(f: FieldInfo): string | undefined {
  if (f.type === 'hostList') return 'with --set: host1:9200,host2:9201';
  if (f.type === 'propertyList') return 'with --set: propertyList.NAME=VALUE';
  return undefined;
}
