// Options and argument handling shared by the catalog verbs.
import { Option } from '@commander-js/extra-typings';
import { type CatalogRef, parseRefWithId } from '../../util/catalog-ref.js';
import { wholeNumber } from '../options.js';

export const idOption = () => new Option('--id', 'take REF as an id, even when it is not a UUID');
export const dryRunOption = () =>
  new Option('--dry-run', 'print the request that would be sent, and send nothing');
export const pageSizeOption = () =>
  new Option('--page-size <n>', 'children per listing request (default 500)').argParser(
    wholeNumber('--page-size', { min: 1, max: 10_000 }),
  );

export const refOf = (input: string, opts: { id?: boolean }): CatalogRef =>
  parseRefWithId(input, Boolean(opts.id));
