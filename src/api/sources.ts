// Sources on top of the catalog API (docs/api-facts.md §6.1): a source is a top-level catalog entity with a
// type and a per-type config whose secrets the service shows masked (`$SERVICE_EXISTING_VALUE$` in the spec;
// real servers use other texts). Updates merge a change into the current config and send every secret the user
// did not change back exactly as the service masked it, so none is lost.
import { EXISTING_SECRET_VALUE } from '../constants.js';
import { NotFoundError } from '../errors.js';
import * as catalog from './catalog.js';
import type { ApiClient } from './http.js';
import type { CatalogEntity } from './schemas/catalog.js';
import { findSourceType, secretFieldNames } from './source-types.js';

/** Every source, read in full (without children), at most `concurrency` reads at a time, in listing order. */
export async function listSources(client: ApiClient, concurrency = 8): Promise<CatalogEntity[]> {
  const top = await catalog.listTopLevel(client);
  const sources = top.filter((s) => s.type === 'CONTAINER' && s.containerType === 'SOURCE');
  return catalog.mapConcurrent(sources, concurrency, (s) =>
    catalog.getById(client, s.id, { exclude: ['children'] }),
  );
}

/** The source called `name` (one path component, taken literally); anything else by that name is a 404. */
export async function getSource(client: ApiClient, name: string): Promise<CatalogEntity> {
  const entity = await catalog.getByPath(client, [name], { exclude: ['children'] }).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
    throw new NotFoundError(`not found: source "${name}"`, {
      moreInfo: err.moreInfo,
      hint: { kind: 'list-sources' },
    });
  });
  if (entity.entityType !== 'source') {
    throw new NotFoundError(`"${name}" is a ${entity.entityType}, not a source`, {
      hint: { kind: 'list-sources' },
    });
  }
  return entity;
}

/** The body of `POST /api/v3/catalog` that creates a source. */
export function newSourceEntity(name: string, type: string, config: Record<string, unknown>) {
  return { entityType: 'source', name, type, config };
}

/**
 * The config to send on update: `patch` (`null` removes a field) applied to the current config. Every secret the
 * patch does not give a new value keeps its stored value through the placeholder; a secret that was never set
 * stays unset.
 */
export function mergeSourceConfig(
  type: string,
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return keepSecrets(current, patch, merged, secretFieldNames(type));
}

/**
 * The body that updates `current` with `patch` (a generic catalog update): the patch's fields over the entity's
 * editable ones, sent with the patch's tag if it names one (the version the user edited, so that the service
 * refuses a lost update), else the current tag. For a source of a known type, every secret the patch leaves
 * out keeps its stored value: the file may hold a whole new config without them.
 */
export function entityUpdateBody(
  current: CatalogEntity,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const body = catalog.editableFields({
    ...current,
    ...patch,
    id: current.id,
    tag: patch.tag ?? current.tag,
  });
  const type = current.type;
  if (current.entityType === 'source' && patch.config && typeof type === 'string' && findSourceType(type)) {
    body.config = keepSecrets(
      current.config ?? {},
      patch.config as Record<string, unknown>,
      body.config as Record<string, unknown>,
      secretFieldNames(type),
    );
  }
  return body;
}

/** The PUT body: the source as read (policies, ACL, tag) with the new config. */
export function sourceUpdateBody(
  current: CatalogEntity,
  config: Record<string, unknown>,
): Record<string, unknown> {
  return { ...catalog.editableFields(current), config };
}

/**
 * Secrets `given` leaves out, or sends back as they were read, keep their stored value: the masked value the
 * service showed (whatever its placeholder text: `$SERVICE_EXISTING_VALUE$` in the spec, other texts on real
 * servers) goes back exactly as it came, since a config without them would erase them and any other text
 * would be stored as the new secret. A secret that was never set stays unset.
 */
function keepSecrets(
  current: Record<string, unknown>,
  given: Record<string, unknown>,
  config: Record<string, unknown>,
  secretNames: readonly string[],
): Record<string, unknown> {
  const out = { ...config };
  for (const name of secretNames) {
    const stored = current[name];
    const isSet = stored !== undefined && stored !== null && stored !== '';
    // A new value: anything given that is not what was read (the spec's placeholder on a source that has no
    // such secret is no value either).
    if (Object.hasOwn(given, name) && given[name] !== stored && given[name] !== EXISTING_SECRET_VALUE)
      continue;
    if (isSet) out[name] = stored;
    else delete out[name];
  }
  return out;
}
