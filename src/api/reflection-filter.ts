// The reflection summary's filter and order (docs/api-facts.md §10.3), built from the words a user gives:
// a JSON object, or `key=value` pairs. Kept apart from reflections.ts (and free of zod) so that a command can
// declare its choices from it without loading the API's schemas.
import { UsageError } from '../errors.js';

/** The service's order fields, ascending or, with `-` in front, descending. */
export const SUMMARY_ORDER_FIELDS = ['reflectionName', 'datasetName', 'reflectionType'] as const;

/** The filter's keys that take lists, and all its keys. */
const SUMMARY_FILTER_ARRAY_KEYS = [
  'reflectionType',
  'refreshStatus',
  'availabilityStatus',
  'configStatus',
  'reflectionIds',
];
/** The values the service knows for the closed-set filter keys; a typo would silently match nothing. */
const SUMMARY_FILTER_VALUES: Record<string, readonly string[]> = {
  reflectionType: ['RAW', 'AGGREGATION'],
  refreshStatus: ['GIVEN_UP', 'MANUAL', 'RUNNING', 'SCHEDULED', 'ON_DATA_CHANGES'],
  availabilityStatus: ['NONE', 'EXPIRED', 'AVAILABLE'],
  configStatus: ['OK', 'INVALID'],
};
const SUMMARY_FILTER_KEYS = [...SUMMARY_FILTER_ARRAY_KEYS, 'enabledFlag', 'reflectionNameOrDatasetPath'];

/**
 * The filter object from `values`: each a JSON object, or a `key=value` pair (lists comma-separated), e.g.
 * `reflectionType=RAW,AGGREGATION`, `enabledFlag=true`, `reflectionNameOrDatasetPath=orders`. `source` names
 * where the values came from in the errors (the caller's words: this layer speaks none of the CLI's).
 * Undefined when there are no values.
 */
export function summaryFilter(
  values: readonly string[],
  source: string,
): Record<string, unknown> | undefined {
  if (values.length === 0) return undefined;
  const filter: Record<string, unknown> = {};
  const known = (key: string, value: unknown): string => {
    const allowed = SUMMARY_FILTER_VALUES[key] ?? [];
    const found = allowed.find((v) => typeof value === 'string' && v === value.toUpperCase());
    if (found === undefined) {
      throw new UsageError(`${source} ${key} "${String(value)}" is not one of: ${allowed.join(', ')}`);
    }
    return found;
  };
  for (const raw of values) {
    const text = raw.trim();
    if (text.startsWith('{')) {
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`${source} is not valid JSON: ${(e as Error).message}`);
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj))
        throw new UsageError(`${source} JSON must be an object`);
      for (const [key, value] of Object.entries(obj)) {
        filter[key] =
          Array.isArray(value) && SUMMARY_FILTER_VALUES[key] ? value.map((v) => known(key, v)) : value;
      }
      continue;
    }
    const eq = text.indexOf('=');
    const key = eq > 0 ? text.slice(0, eq).trim() : '';
    if (!SUMMARY_FILTER_KEYS.includes(key)) {
      throw new UsageError(
        eq > 0 ? `unknown ${source} attribute "${key}"` : `${source} "${raw}" is not key=value or JSON`,
        { hint: `use one of: ${SUMMARY_FILTER_KEYS.join(', ')} (e.g. ${source} reflectionType=RAW)` },
      );
    }
    const value = text.slice(eq + 1).trim();
    if (SUMMARY_FILTER_ARRAY_KEYS.includes(key)) {
      const items = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
        .map((v) => (SUMMARY_FILTER_VALUES[key] ? known(key, v) : v));
      filter[key] = [...((filter[key] as string[] | undefined) ?? []), ...items];
    } else if (key === 'enabledFlag') {
      if (!/^(true|false)$/i.test(value)) throw new UsageError(`${source} enabledFlag takes true or false`);
      filter[key] = value.toLowerCase() === 'true';
    } else {
      filter[key] = value;
    }
  }
  return filter;
}

/** An order: one of the service's fields, `-` in front for descending. */
export function checkSummaryOrder(orderBy: string): string {
  const field = orderBy.startsWith('-') ? orderBy.slice(1) : orderBy;
  if (!(SUMMARY_ORDER_FIELDS as readonly string[]).includes(field)) {
    throw new UsageError(`cannot order reflections by "${orderBy}"`, {
      hint: `use one of: ${SUMMARY_ORDER_FIELDS.join(', ')} (prefix - for descending)`,
    });
  }
  return orderBy;
}
