// A source's secret fields (its password, its keys): which they are for a type, and the environment variable
// a pulled one is written as. Apart from substitution.ts, which reads the definitions' files, so that
// definitions.ts can use them without a circle of imports.
import { findSourceType } from '../api/source-types.js';

/** The secret fields of a source type (none for a type dlake does not know). */
export function secretFields(type: unknown): string[] {
  const info = typeof type === 'string' ? findSourceType(type) : undefined;
  return info ? info.fields.filter((f) => f.secret).map((f) => f.name) : [];
}

/** The environment variable a pulled source's secret is read from: `<SOURCE>_<FIELD>`, upper case. */
export function secretVariable(source: string, field: string): string {
  return `${source}_${field}`
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}
