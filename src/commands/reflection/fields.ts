// The field options of `reflection create|update` turned into the API's field lists, each name checked
// against the dataset's schema before anything is sent.
import type { FieldLists } from '../../api/reflections.js';
import { UsageError } from '../../errors.js';

const MEASURES = ['SUM', 'COUNT', 'MIN', 'MAX', 'APPROX_COUNT_DISTINCT'] as const;

/** The field-list options of `reflection create|update`, as their declaration names them. */
const FIELD_FLAGS = ['display', 'dimension', 'measure', 'partition', 'sort', 'distribution'] as const;
export type FieldFlag = (typeof FIELD_FLAGS)[number];
/** What the helpers below read of a verb's options: the field lists given, each as its values. */
type FieldValues = { readonly [K in FieldFlag]?: string[] };

/**
 * Refuses a field named twice in one option (`--display a,a,A`: field names are case-insensitive), before
 * anything is sent: the service would keep one or fail on the whole reflection.
 */
export function refuseDuplicateFields(opts: FieldValues): void {
  for (const key of FIELD_FLAGS) {
    const seen = new Map<string, string>();
    for (const raw of opts[key] ?? []) {
      const colon = key === 'dimension' || key === 'measure' ? raw.lastIndexOf(':') : -1;
      const n = (colon > 0 ? raw.slice(0, colon) : raw).trim();
      const earlier = seen.get(n.toLowerCase());
      if (earlier !== undefined) {
        throw new UsageError(
          `--${key}: field "${n}" is given twice${earlier === n ? '' : ` (as "${earlier}")`}`,
          {
            hint: 'name each field once',
          },
        );
      }
      seen.set(n.toLowerCase(), n);
    }
  }
}

/**
 * The field lists the options give, with each name matched (case-insensitively) to the dataset's own
 * spelling. A name the dataset does not have is refused before anything is sent, with the fields it has.
 * `datasetFields` undefined: the schema is not known (a view never run), so names go as given.
 */
export function fieldLists(
  opts: FieldValues,
  datasetFields: readonly string[] | undefined,
  dataset: string,
): FieldLists {
  refuseDuplicateFields(opts);
  const name = (raw: string, flag: string): string => {
    const n = raw.trim();
    if (!n) throw new UsageError(`${flag}: an empty field name`);
    if (!datasetFields) return n;
    const found = datasetFields.find((f) => f.toLowerCase() === n.toLowerCase());
    if (!found) {
      throw new UsageError(`${flag}: field "${n}" is not in ${dataset}`, {
        hint: `its fields: ${datasetFields.join(', ') || '(none)'}`,
      });
    }
    return found;
  };
  const split = (raw: string, flag: string): [string, string | undefined] => {
    const i = raw.lastIndexOf(':');
    return i > 0
      ? [
          name(raw.slice(0, i), flag),
          raw
            .slice(i + 1)
            .trim()
            .toUpperCase(),
        ]
      : [name(raw, flag), undefined];
  };
  const out: FieldLists = {};
  const plain = (values: string[] | undefined, flag: string) => values?.map((v) => ({ name: name(v, flag) }));
  if (opts.display) out.displayFields = plain(opts.display, '--display');
  if (opts.partition) out.partitionFields = plain(opts.partition, '--partition');
  if (opts.sort) out.sortFields = plain(opts.sort, '--sort');
  if (opts.distribution) out.distributionFields = plain(opts.distribution, '--distribution');
  if (opts.dimension) {
    out.dimensionFields = opts.dimension.map((v) => {
      const [n, g] = split(v, '--dimension');
      if (g !== undefined && g !== 'DATE' && g !== 'NORMAL') {
        throw new UsageError(`--dimension ${v}: the granularity is DATE or NORMAL, not "${g}"`);
      }
      return { name: n, granularity: g ?? 'NORMAL' };
    });
  }
  if (opts.measure) {
    out.measureFields = opts.measure.map((v) => {
      const [n, m] = split(v, '--measure');
      const types = m ? m.split('|') : ['SUM', 'COUNT'];
      const bad = types.find((t) => !(MEASURES as readonly string[]).includes(t));
      if (bad) throw new UsageError(`--measure ${v}: "${bad}" is not one of ${MEASURES.join(', ')}`);
      return { name: n, measureTypeList: types };
    });
  }
  return out;
}

/** The names of a dataset's fields, when its entity lists them. */
export function datasetFieldNames(entity: { fields?: Array<{ name: string }> }): string[] | undefined {
  return entity.fields?.length ? entity.fields.map((f) => f.name) : undefined;
}
