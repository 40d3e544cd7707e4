// Options and argument handling shared by the catalog verbs.
import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { type CatalogRef, parseRefWithId } from '../../util/catalog-ref.js';

export interface RefOptions {
  id?: boolean;
}

export const idOption = () => new Option('--id', 'take REF as an id, even when it is not a UUID');
export const dryRunOption = () =>
  new Option('--dry-run', 'print the request that would be sent, and send nothing');
export const pageSizeOption = () =>
  new Option('--page-size <n>', 'children per listing request (default 500)').argParser(
    intOption('--page-size', 1, 10_000),
  );

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter((v) => v !== '')];
}

export function intOption(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
      throw new UsageError(`${flag} "${value}" is not a whole number ${range}`);
    }
    return n;
  };
}

export const refOf = (input: string, opts: RefOptions): CatalogRef => parseRefWithId(input, Boolean(opts.id));
