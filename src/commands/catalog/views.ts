// How catalog items read in tables and sentences, shared by the catalog verbs.
import type { CatalogEntity, CatalogSummary } from '../../api/schemas/catalog.js';
import type { View } from '../../output/view.js';
import { formatPath } from '../../util/catalog-ref.js';

/** What an admin calls the kind of an item: SPACE, SOURCE, FOLDER, HOME, VIRTUAL, PROMOTED, DIRECT, FILE. */
export function summaryType(s: CatalogSummary): string {
  return s.containerType ?? s.datasetType ?? s.type;
}

export function entityType(e: CatalogEntity): string {
  if (e.entityType !== 'dataset') return e.entityType.toUpperCase();
  if (e.type === 'VIRTUAL_DATASET') return 'VIRTUAL';
  // Tables promoted from files carry their format; other physical datasets are direct (JDBC and the like).
  return e.format ? 'PROMOTED' : 'DIRECT';
}

/** The kind of an entity in a sentence: "view Sales/v", "table Samples/sales", "folder Sales/reports". */
export function kindOf(e: CatalogEntity): string {
  if (e.entityType !== 'dataset') return e.entityType;
  return e.type === 'VIRTUAL_DATASET' ? 'view' : 'table';
}

export const SUMMARY_VIEW: View<CatalogSummary> = {
  columns: [
    { header: 'PATH', value: (s) => formatPath(s.path) },
    { header: 'TYPE', value: summaryType },
    { header: 'ID', value: (s) => s.id },
    { header: 'TAG', value: (s) => s.tag },
  ],
};

export function entityView(pathOf: (e: CatalogEntity) => string[]): View<CatalogEntity> {
  return {
    columns: [
      { header: 'PATH', value: (e) => formatPath(pathOf(e)) },
      { header: 'TYPE', value: entityType },
      { header: 'ID', value: (e) => e.id },
      { header: 'TAG', value: (e) => e.tag },
    ],
  };
}
