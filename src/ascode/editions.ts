// Definitions across editions: what a folder pulled from one edition can become on the other. The hosted
// edition's catalog has no spaces, and it has engines instead of workload queues and their rules
// (docs/api-facts.md §13.4, §13.5): those definitions, and everything inside a space or a source that is not
// carried over, are set aside with the reason, each one reported, and the rest is planned and applied as usual.
import { notCarriedSourceType, type Root } from '../api/roots.js';
import { formatPath } from '../util/catalog-ref.js';
import { type Definition, definitionLabel, isAdminKind } from './definitions.js';
import { catalogKey } from './order.js';

/** `space Sales`, `view Sales/v`, `queue etl`, `the ruleset`: how a definition is named in a report. */
export function labelOf(def: Definition): string {
  return isAdminKind(def.kind) ? definitionLabel(def) : `${def.kind} ${formatPath(def.path)}`;
}

interface SetAside {
  def: Definition;
  reason: string;
}

/** The definitions the target edition can take, and those it cannot, each with why. */
export function portableTo(
  root: Root,
  defs: readonly Definition[],
): { defs: Definition[]; setAside: SetAside[] } {
  if (root.edition !== 'cloud') return { defs: [...defs], setAside: [] };
  const setAside: SetAside[] = [];
  // Containers not carried over, by path: what is inside them goes with them.
  const gone = new Map<string, Definition>();
  const own = (def: Definition): string | undefined => {
    switch (def.kind) {
      case 'space':
        return 'the hosted catalog has no spaces';
      case 'queue':
        return 'the hosted edition has no workload queues; its engines take their place, see `dlake engine`';
      case 'rule':
        return 'the hosted edition has no queue rules; its engine rules take their place, see `dlake engine rules`';
      case 'source':
        return notCarriedSourceType(def.fields.type);
      default:
        return undefined;
    }
  };
  for (const def of defs) {
    const reason = own(def);
    if (reason && (def.kind === 'space' || def.kind === 'source')) gone.set(catalogKey(def.path), def);
  }
  const kept: Definition[] = [];
  for (const def of defs) {
    let reason = own(def);
    // A grant is on the entity of its own path; anything else is inside the containers of its path.
    const start = def.kind === 'grant' ? def.path.length : def.path.length - 1;
    for (let n = start; !reason && n >= 1; n--) {
      const container = gone.get(catalogKey(def.path.slice(0, n)));
      if (container) reason = `it is inside ${labelOf(container)}, which is not carried over`;
    }
    if (reason) setAside.push({ def, reason });
    else kept.push(def);
  }
  return { defs: kept, setAside };
}
