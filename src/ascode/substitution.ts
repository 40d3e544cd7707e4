// `${env:NAME}` in definition files (docs/definitions-as-code.md, "Environment references"): which variable a
// file may name in which field, the substitution plan makes before comparing, the secrets apply reads only
// when it writes them, and pull keeping the references a file holds.
//
// The rule: a definitions change must not be able to make dlake reveal a credential. A plan shows, a saved plan
// stores and the service keeps (and a pull writes back) whatever a field is substituted with, so a variable is
// substituted outside a source's secret fields only when the user running dlake allowed it by name or prefix
// (DLAKE_DEFS_ENV_ALLOW: the environment, never the folder, which a pull request can change). dlake's own
// variables (its credentials among them) and the proxy variables (which can carry a password) are never read.
import { existsSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { readTextFile } from '../util/files.js';
import { type Definition, definitionLabel } from './definitions.js';
import { fileFor } from './layout.js';
import { secretFields } from './secret-fields.js';

/** The variable that lists what may be substituted outside a source's secret fields. */
const ALLOW_VARIABLE = 'DLAKE_DEFS_ENV_ALLOW';

const ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;
/**
 * A `${env:NAME}` anywhere in a string, or its escape `$${env:NAME}` (the text `${env:NAME}` as it is, data such
 * as a view's SQL that holds those characters): the first group is the escape's second `$`.
 */
const ENV_REFS = /\$(\$)?\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The text `${env:` written as data: escaped as `$${env:`, so that no plan reads it as a reference. */
const escapeLiteral = (s: string): string => s.replace(/\$\{env:/g, '$$${env:');

/** A string of a file as its text: each escape `$${env:NAME}` back to `${env:NAME}`, references left alone. */
const unescapeLiteral = (s: string): string =>
  s.replace(ENV_REFS, (whole, escaped: string | undefined) => (escaped ? whole.slice(1) : whole));

/** dlake's own settings and credentials (DLAKE_TOKEN, DLAKE_CLIENT_SECRET, …) and the proxy variables. */
const NEVER = /^(DLAKE_.*|(HTTPS?|ALL)_PROXY)$/i;
/** Names that look like a credential: a prefix never allows one, only its whole name does. */
const CREDENTIAL_LIKE = /PASSW(OR)?D|SECRET|TOKEN|CREDENTIAL|PRIVATE|API_?KEY|ACCESS_?KEY|AUTH/i;

/** The variable a `${env:NAME}` value names, or undefined for any other value. */
export function envReference(value: unknown): string | undefined {
  return typeof value === 'string' ? ENV_REF.exec(value)?.[1] : undefined;
}

/** What DLAKE_DEFS_ENV_ALLOW allows: whole names, and prefixes (`LAKE_*`; `*` alone is every name). */
interface AllowList {
  names: ReadonlySet<string>;
  prefixes: readonly string[];
}

/** DLAKE_DEFS_ENV_ALLOW of `env`: names and `PREFIX*`, separated by commas or spaces. */
function allowList(env: Record<string, string | undefined>): AllowList {
  const names = new Set<string>();
  const prefixes: string[] = [];
  for (const item of (env[ALLOW_VARIABLE] ?? '').split(/[\s,]+/).filter(Boolean)) {
    if (!/^([A-Za-z_][A-Za-z0-9_]*\*?|\*)$/.test(item)) {
      throw new UsageError(
        `${ALLOW_VARIABLE} holds ${JSON.stringify(item)}, which is neither a variable name nor a prefix`,
        { hint: `list names and prefixes, e.g. ${ALLOW_VARIABLE}=PG_HOST,LAKE_*` },
      );
    }
    if (item.endsWith('*')) prefixes.push(item.slice(0, -1));
    else names.add(item);
  }
  return { names, prefixes };
}

/** A `${env:NAME}` a definition holds: the field (dotted) and whether it is a source's secret. */
interface Reference {
  field: string;
  name: string;
  secret: boolean;
}

/** Why `name` may not be read where it is, or undefined when it may. */
function refusal(ref: Reference, allow: AllowList): string | undefined {
  if (NEVER.test(ref.name)) return "which is one of dlake's own settings, never read by a definition";
  if (ref.secret || allow.names.has(ref.name)) return undefined;
  const prefixed = allow.prefixes.some((p) => ref.name.startsWith(p));
  if (prefixed && !CREDENTIAL_LIKE.test(ref.name)) return undefined;
  return prefixed
    ? `which looks like a credential: ${ALLOW_VARIABLE} allows it only by its whole name`
    : `which only a source's secret fields may read unless ${ALLOW_VARIABLE} allows it`;
}

/** The fields of `def` as substitution sees them: each string with where it is and whether it is a secret. */
function walkFields(
  def: Pick<Definition, 'kind' | 'fields'>,
  visit: (value: string, field: string, secret: boolean) => string,
): Record<string, unknown> {
  const secrets = new Set(def.kind === 'source' ? secretFields(def.fields.type) : []);
  const walk = (value: unknown, field: string): unknown => {
    if (typeof value === 'string') return visit(value, field, false);
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${field}.${i}`));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          // A secret is only ever a whole reference, read when apply writes it; anything else in it is sent
          // as written.
          field === 'config' && secrets.has(k)
            ? typeof v === 'string'
              ? visit(v, `${field}.${k}`, true)
              : v
            : walk(v, `${field}.${k}`),
        ]),
      );
    }
    return value;
  };
  return Object.fromEntries(Object.entries(def.fields).map(([k, v]) => [k, walk(v, k)]));
}

/** Every `${env:NAME}` that `def` would have substituted (in a plan) or read (a secret, in apply). */
function references(def: Pick<Definition, 'kind' | 'fields'>): Reference[] {
  const out: Reference[] = [];
  if (!JSON.stringify(def.fields).includes('${env:')) return out;
  walkFields(def, (value, field, secret) => {
    if (secret) {
      const name = envReference(value);
      if (name !== undefined) out.push({ field, name, secret });
    } else for (const m of value.matchAll(ENV_REFS)) if (!m[1]) out.push({ field, name: m[2]!, secret });
    return value;
  });
  return out;
}

/** The error for the references of `defs` that the rule refuses; `where` names a definition's file. */
function refused(
  found: { where: string; ref: Reference; why: string }[],
  hint: string,
): UsageError | undefined {
  const line = (f: (typeof found)[number]) =>
    `${f.where}: ${f.ref.field} names \${env:${f.ref.name}}, ${f.why}`;
  if (found.length === 0) return undefined;
  const [first, ...rest] = found;
  return new UsageError(line(first!), {
    details: [...rest.slice(0, 9).map(line), ...(rest.length > 9 ? [`and ${rest.length - 9} more`] : [])],
    hint,
  });
}

/**
 * Refuses definitions that name a variable the rule does not let them read (exit 2, naming the file, the field
 * and the variable, never its value), before anything is read from the service or planned.
 */
export function checkReferences(defs: readonly Definition[], env: Record<string, string | undefined>): void {
  const allow = allowList(env);
  const found: { where: string; ref: Reference; why: string }[] = [];
  for (const def of defs) {
    for (const ref of references(def)) {
      const why = refusal(ref, allow);
      if (why) found.push({ where: def.file ?? definitionLabel(def), ref, why });
    }
  }
  const names = [...new Set(found.map((f) => f.ref.name))].filter((n) => !NEVER.test(n));
  const error = refused(
    found,
    names.length
      ? `a value substituted there shows in plans and is stored on the service; if ${names.join(', ')} ${names.length > 1 ? 'hold' : 'holds'} no secret, set ${ALLOW_VARIABLE}=${names.join(',')}; nothing was planned or sent`
      : 'nothing was planned or sent',
  );
  if (error) throw error;
}

/**
 * Refuses a saved plan's source secret that names one of dlake's own variables: apply reads those references
 * when it writes (every other string of a saved plan was substituted when it was made, and is sent as it is).
 */
export function checkSavedReferences(defs: readonly { where: string; def: Definition }[]): void {
  const found: { where: string; ref: Reference; why: string }[] = [];
  for (const { where, def } of defs) {
    for (const ref of references(def)) {
      const why = ref.secret ? refusal(ref, { names: new Set(), prefixes: [] }) : undefined;
      if (why) found.push({ where, ref, why });
    }
  }
  const error = refused(found, 'nothing was applied');
  if (error) throw error;
}

/** `${variable}` of `env` for `field` of `def`, or a usage error naming them when it is unset (or empty). */
function variableValue(
  def: Definition,
  field: string,
  variable: string,
  env: Record<string, string | undefined>,
) {
  const found = env[variable];
  if (found === undefined || found === '') {
    const label = formatPath(def.path) || definitionLabel(def);
    throw new UsageError(
      `${field} of ${label} needs the environment variable ${variable}, which is not set`,
      {
        hint: `set ${variable}; nothing was planned or sent for ${definitionLabel(def)}`,
      },
    );
  }
  return found;
}

/**
 * The definition with every `${env:NAME}` in its fields replaced by the variable's value, at any depth and
 * anywhere in a string (`jdbc:${env:HOST}:5432`), so that plan compares what apply would send. A source's
 * secret fields are left as references: they are never compared, and apply reads them when it writes
 * (resolveSecrets). `path`, `tags` and `wiki` are taken as written. A variable that is unset (or empty) is a
 * usage error naming the field; one the rule refuses (checkReferences, which readPlan runs first) too.
 */
export function substituteEnv(def: Definition, env: Record<string, string | undefined>): Definition {
  if (!JSON.stringify(def.fields).includes('${env:')) return def;
  checkReferences([def], env);
  const fields = walkFields(def, (value, field, secret) =>
    secret
      ? value
      : value.replace(ENV_REFS, (whole, escaped: string | undefined, name: string) =>
          escaped ? whole.slice(1) : variableValue(def, field, name, env),
        ),
  );
  return { ...def, fields };
}

/**
 * The fields apply sends for `def`: a source's secret fields that are `${env:NAME}` replaced by the variable's
 * value (never one of dlake's own); a missing variable stops the entity here.
 */
export function resolveSecrets(
  def: Definition,
  env: Record<string, string | undefined>,
): Record<string, unknown> {
  if (def.kind !== 'source' || typeof def.fields.config !== 'object' || def.fields.config === null) {
    return def.fields;
  }
  checkSavedReferences([{ where: def.file ?? definitionLabel(def), def }]);
  return walkFields(def, (value, field, secret) => {
    const variable = secret ? envReference(value) : undefined;
    return variable === undefined ? value : variableValue(def, field, variable, env);
  });
}

/** `value` with each `${env:NAME}` replaced, or undefined when a variable it names is unset (or empty). */
function substituted(value: string, env: Record<string, string | undefined>): string | undefined {
  let unset = false;
  const out = value.replace(ENV_REFS, (whole, escaped: string | undefined, name: string) => {
    if (escaped) return whole.slice(1);
    const found = env[name];
    if (found === undefined || found === '') unset = true;
    return found ?? '';
  });
  return unset ? undefined : out;
}

/** `pulled`, with the references of `existing` wherever they give the pulled value (see keepReferences). */
function withReferences(
  pulled: unknown,
  existing: unknown,
  env: Record<string, string | undefined>,
): unknown {
  if (typeof existing === 'string' && typeof pulled === 'string' && existing.includes('${env:')) {
    // A secret is pulled as a reference, never a value: the file's own reference for it stays.
    if (envReference(pulled) && envReference(existing)) return existing;
    return substituted(existing, env) === unescapeLiteral(pulled) ? existing : pulled;
  }
  if (Array.isArray(pulled) && Array.isArray(existing) && pulled.length === existing.length) {
    return pulled.map((v, i) => withReferences(v, existing[i], env));
  }
  if (pulled && existing && typeof pulled === 'object' && typeof existing === 'object') {
    const from = existing as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(pulled).map(([k, v]) => [k, k in from ? withReferences(v, from[k], env) : v]),
    );
  }
  return pulled;
}

/**
 * The pulled definitions, each keeping the `${env:NAME}` references that its file in `dir` (where pull writes
 * it) already holds, wherever the reference with the variable's value in `env` gives what the service has; a
 * secret's reference is kept as it is. So pulling again does not write an environment's values over the
 * references a user wrote; a value that differs (or a variable that is unset) is written as the service has it.
 */
export function keepReferences(
  dir: string,
  defs: readonly Definition[],
  env: Record<string, string | undefined>,
): Definition[] {
  return defs.map((pulled) => {
    // What the service holds is data: its `${env:` text is written escaped (a secret is pulled as a reference).
    const def = { ...pulled, fields: walkFields(pulled, (v, _f, secret) => (secret ? v : escapeLiteral(v))) };
    const file = fileFor(dir, def);
    if (!existsSync(file)) return def;
    let text: string;
    try {
      text = readTextFile(file);
    } catch {
      return def;
    }
    if (!text.includes('${env:')) return def;
    let existing: unknown;
    try {
      existing = parse(text, { prettyErrors: false });
    } catch {
      return def;
    }
    if (!existing || typeof existing !== 'object') return def;
    const fields = withReferences(def.fields, existing, env) as Record<string, unknown>;
    return { ...def, fields };
  });
}
