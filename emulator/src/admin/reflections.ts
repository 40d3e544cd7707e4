// The reflection summary: seeded, stable reflections, filtered, ordered and paged by token. Enterprise only.

import type { AreaContext } from '../area.js';
import { requireAuth } from '../guards.js';
import { badRequest, type EmuRequest, ok, omitUndefined } from '../http.js';
import { iso, type Json, stableUuid } from './common.js';

export interface ReflectionSummaryItem {
  id: string;
  reflectionType: 'RAW' | 'AGGREGATION';
  name: string;
  createdAt: string;
  updatedAt: string;
  currentSizeBytes: number;
  outputRecords: number;
  totalSizeBytes: number;
  datasetId: string;
  datasetType: 'PHYSICAL_DATASET' | 'VIRTUAL_DATASET';
  datasetPath: string[];
  status: {
    configStatus: 'OK' | 'INVALID';
    refreshStatus: string;
    availabilityStatus: 'NONE' | 'EXPIRED' | 'AVAILABLE';
    combinedStatus: string;
    refreshMethod: 'NONE' | 'FULL' | 'INCREMENTAL';
    failureCount: number;
    lastFailureMessage?: string;
    lastDataFetchAt: string | null;
    expiresAt: string | null;
    lastRefreshDurationMillis: number;
  };
  consideredCount: number;
  matchedCount: number;
  chosenCount: number;
  consideredJobsLink: string;
  matchedJobsLink: string;
  chosenJobsLink: string;
  isArrowCachingEnabled: boolean;
  isCanView: boolean;
  isCanAlter: boolean;
  isEnabled: boolean;
}

export const SEEDED_REFLECTIONS = 120;
const REFRESH_STATUSES = ['SCHEDULED', 'MANUAL', 'RUNNING', 'GIVEN_UP', 'ON_DATA_CHANGES'];
const SPACES = ['Sales', 'Marketing', 'Finance', 'Ops'];
const TABLES = ['orders', 'customers', 'events', 'invoices', 'trips', 'zips'];
const SEED_EPOCH = Date.UTC(2024, 2, 1);

/** The emulator's generated table (src/sql-engine.ts), which every emulator has. */
const BIG: string[] = ['big'];

/**
 * Deterministic synthetic reflections (enough for three pages at the default size). They sit on 24
 * datasets: the first is the generated table `big`, which every emulator has (so that a job on it is
 * accelerated by reflections on it); of the others, odd ones are views in a space, even ones promoted files in
 * the `Samples` source.
 */
export function seedReflections(count = SEEDED_REFLECTIONS): ReflectionSummaryItem[] {
  return Array.from({ length: count }, (_, i) => seedReflection(i));
}

/** The seeded reflections on the dataset at `path` (matched as the service matches names: ignoring case). */
export function seededReflectionsOn(path: readonly string[]): ReflectionSummaryItem[] {
  const key = path.join('.').toLowerCase();
  return seedReflections().filter((r) => r.datasetPath.join('.').toLowerCase() === key);
}

function seedReflection(i: number): ReflectionSummaryItem {
  const d = i % 24;
  const space = SPACES[d % SPACES.length]!;
  const onBig = d === 0;
  const table = onBig ? BIG[0]! : TABLES[Math.floor(d / SPACES.length) % TABLES.length]!;
  const virtual = d % 2 === 1;
  const type = i % 3 === 0 ? 'AGGREGATION' : 'RAW';
  const id = stableUuid(`reflection-${i}`);
  const enabled = i % 10 !== 9;
  const refreshStatus = REFRESH_STATUSES[i % REFRESH_STATUSES.length]!;
  const invalid = i % 17 === 16;
  const availability = refreshStatus === 'GIVEN_UP' ? 'NONE' : i % 7 === 6 ? 'EXPIRED' : 'AVAILABLE';
  const created = SEED_EPOCH + i * 3_600_000;
  const fetched = availability === 'NONE' ? null : created + 1_800_000;
  const link = (rel: string): string =>
    `/jobs?filters=${encodeURIComponent(JSON.stringify({ [rel]: [id] }))}`;
  return {
    id,
    reflectionType: type,
    name: `${table}_${type.toLowerCase()}_${String(i).padStart(3, '0')}`,
    createdAt: iso(created),
    updatedAt: iso(created + 1_800_000),
    currentSizeBytes: fetched ? 4096 * (i + 1) : 0,
    outputRecords: fetched ? 1000 + i * 13 : -1,
    totalSizeBytes: fetched ? 8192 * (i + 1) : 0,
    // `big`'s id is the one its jobs name it by (src/jobs.ts).
    datasetId: onBig ? stableUuid('dataset:big') : stableUuid(`dataset-${d}`),
    datasetType: virtual ? 'VIRTUAL_DATASET' : 'PHYSICAL_DATASET',
    datasetPath: onBig
      ? BIG
      : virtual
        ? [space, 'curated', table]
        : ['Samples', space.toLowerCase(), `${table}.parquet`],
    status: {
      configStatus: invalid ? 'INVALID' : 'OK',
      refreshStatus,
      availabilityStatus: availability,
      combinedStatus: combinedStatus(enabled, invalid, refreshStatus, availability),
      refreshMethod: fetched ? (i % 2 ? 'FULL' : 'INCREMENTAL') : 'NONE',
      failureCount: refreshStatus === 'GIVEN_UP' ? 3 : 0,
      lastFailureMessage: refreshStatus === 'GIVEN_UP' ? 'Refresh failed: source unavailable' : undefined,
      // The summary documents these as "ISO or null", so null is sent rather than the field left out.
      lastDataFetchAt: fetched ? iso(fetched) : null,
      expiresAt: fetched ? iso(fetched + 3 * 3_600_000) : null,
      lastRefreshDurationMillis: fetched ? 1000 + i * 37 : -1,
    },
    consideredCount: i % 11,
    matchedCount: i % 5,
    chosenCount: i % 3,
    consideredJobsLink: link('crf'),
    matchedJobsLink: link('mrf'),
    chosenJobsLink: link('arf'),
    isArrowCachingEnabled: i % 4 === 0,
    isCanView: true,
    isCanAlter: true,
    isEnabled: enabled,
  };
}

function combinedStatus(enabled: boolean, invalid: boolean, refresh: string, availability: string): string {
  if (!enabled) return 'DISABLED';
  if (invalid) return 'INVALID';
  if (refresh === 'GIVEN_UP') return 'FAILED';
  if (refresh === 'RUNNING') return 'REFRESHING';
  if (availability === 'EXPIRED') return 'EXPIRED';
  return 'CAN_ACCELERATE';
}

interface SummaryFilter {
  reflectionType?: string[];
  refreshStatus?: string[];
  availabilityStatus?: string[];
  configStatus?: string[];
  enabledFlag?: boolean;
  reflectionNameOrDatasetPath?: string;
  reflectionIds?: string[];
}

const ARRAY_FILTERS = [
  'reflectionType',
  'refreshStatus',
  'availabilityStatus',
  'configStatus',
  'reflectionIds',
];
const ORDER_KEYS: Record<string, (r: ReflectionSummaryItem) => string> = {
  reflectionName: (r) => r.name,
  datasetName: (r) => r.datasetPath.join('.'),
  reflectionType: (r) => r.reflectionType,
};

/** The filter is URL-encoded JSON (URLSearchParams has already decoded it once). Texts are unconfirmed. */
function parseSummaryFilter(raw: string | null): SummaryFilter {
  if (!raw) return {};
  let f: unknown;
  try {
    f = JSON.parse(raw);
  } catch {
    throw badRequest(`Invalid filter: ${raw}`);
  }
  if (!f || typeof f !== 'object' || Array.isArray(f)) throw badRequest(`Invalid filter: ${raw}`);
  const obj = f as Json;
  for (const [k, v] of Object.entries(obj)) {
    const okType = ARRAY_FILTERS.includes(k)
      ? Array.isArray(v) && v.every((x) => typeof x === 'string')
      : k === 'enabledFlag'
        ? typeof v === 'boolean'
        : k === 'reflectionNameOrDatasetPath' && typeof v === 'string';
    if (!okType) throw badRequest(`Invalid filter attribute: ${k}`);
  }
  if (obj.reflectionIds && Object.keys(obj).length > 1) {
    throw badRequest('reflectionIds cannot be combined with other filter attributes');
  }
  return obj as SummaryFilter;
}

function matchesSummary(r: ReflectionSummaryItem, f: SummaryFilter): boolean {
  if (f.reflectionIds) return f.reflectionIds.includes(r.id);
  if (f.reflectionType && !f.reflectionType.includes(r.reflectionType)) return false;
  if (f.refreshStatus && !f.refreshStatus.includes(r.status.refreshStatus)) return false;
  if (f.availabilityStatus && !f.availabilityStatus.includes(r.status.availabilityStatus)) return false;
  if (f.configStatus && !f.configStatus.includes(r.status.configStatus)) return false;
  if (f.enabledFlag !== undefined && r.isEnabled !== f.enabledFlag) return false;
  const q = f.reflectionNameOrDatasetPath?.toLowerCase();
  if (q && !r.name.toLowerCase().includes(q) && !r.datasetPath.join('.').toLowerCase().includes(q))
    return false;
  return true;
}

function sortSummaries(items: ReflectionSummaryItem[], orderBy: string | null): ReflectionSummaryItem[] {
  if (!orderBy) return items;
  const desc = orderBy.startsWith('-');
  const key = ORDER_KEYS[desc ? orderBy.slice(1) : orderBy];
  if (!key) throw badRequest(`Invalid orderBy: ${orderBy}`);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...items].sort(
    (a, b) => (desc ? -1 : 1) * cmp(key(a), key(b)) || cmp(a.name, b.name) || cmp(a.id, b.id),
  );
}

/**
 * The page token carries the offset and the filter and order of the first request: dremio-js sends only
 * `maxResults` and `pageToken` after the first page, so the server must remember them. A request that
 * repeats them differently is refused.
 */
interface PageState {
  o: number;
  f: string | null;
  s: string | null;
}

function decodePageToken(token: string, req: EmuRequest): PageState {
  let st: PageState;
  try {
    st = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PageState;
  } catch {
    throw badRequest('Invalid page token');
  }
  const sent = (k: string): string | null => req.query.get(k);
  if (
    typeof st?.o !== 'number' ||
    (sent('filter') !== null && sent('filter') !== st.f) ||
    (sent('orderBy') !== null && sent('orderBy') !== st.s)
  ) {
    throw badRequest('Invalid page token');
  }
  return st;
}

const encodePageToken = (st: PageState): string => Buffer.from(JSON.stringify(st)).toString('base64url');

export function registerReflectionSummary(area: AreaContext): void {
  const reflections = seedReflections();

  area.router.get('/api/v3/reflection-summary', (req) => {
    requireAuth(req);
    const rawMax = req.query.get('maxResults');
    const max = rawMax === null ? 50 : /^\d+$/.test(rawMax) ? Number(rawMax) : Number.NaN;
    // The real text for an out-of-range page size is unconfirmed.
    if (!(max >= 1 && max <= 100)) throw badRequest('maxResults must be between 1 and 100');
    const token = req.query.get('pageToken');
    const st: PageState = token
      ? decodePageToken(token, req)
      : { o: 0, f: req.query.get('filter'), s: req.query.get('orderBy') };
    const filter = parseSummaryFilter(st.f);
    const all = sortSummaries(
      reflections.filter((r) => matchesSummary(r, filter)),
      st.s,
    );
    const data = all
      .slice(st.o, st.o + max)
      .map((r) => omitUndefined({ ...r, status: omitUndefined(r.status) }));
    const body: Json = { data };
    if (st.o + max < all.length) body.nextPageToken = encodePageToken({ ...st, o: st.o + max });
    // The flag's name is unconfirmed (docs: isCanAlterReflections; UI code: canAlterReflections).
    body.canAlterReflections = true;
    return ok(body);
  });
}
