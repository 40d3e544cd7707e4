// `dlake access why PRINCIPAL REF [--privilege P]`: why a user or role may (or may not) use an entity: the
// roles it holds, the grants on the entity and on each container above it, and which grant gives which
// privilege (src/api/access.ts has the rules). With --privilege the exit code answers: 0 held, 1 not held.
import type { Command } from '@commander-js/extra-typings';
import type { Explanation, HeldRole, Level, Principal } from '../api/access.js';
import type { Context } from '../context.js';
import { DlakeError, ExitCode, UsageError } from '../errors.js';
import { explainAccess, parsePrincipalText } from '../ops/access.js';
import { stderrSafe } from '../output/safe-text.js';
import { formatPath, parseRefWithId } from '../util/catalog-ref.js';
import { examples } from './common.js';
import { defineCommand, defineGroup, type OptionsOf } from './define.js';

const declaration = (access: Command) =>
  access
    .command('why')
    .description(
      'Explain which grants give a user or role its privileges on an entity, and what it lacks (Enterprise)',
    )
    .argument('<principal>', 'user:NAME, role:NAME, or a user name')
    .argument('<ref>', 'path or id of the entity')
    .option('--id', 'take REF as an id, even when it is not a UUID')
    .option('--privilege <privilege>', 'answer with the exit code: 0 when it is held, 1 when it is not')
    .addHelpText(
      'after',
      examples(
        'dlake access why bob Sales/orders',
        'dlake access why role:analysts Sales/orders -o json',
        'dlake access why user:bob Sales/orders --privilege SELECT && echo "bob can read it"',
      ),
    );

/**
 * The answer "not held": exit code 10, "the answer is no" (docs/cli-contract.md "Administration"; 1 stays a bug
 * in dlake), an `error:` line and a hint.
 */
class NotHeldError extends DlakeError {
  override readonly exitCode = ExitCode.no;
}

async function why(
  ctx: Context,
  principalText: string,
  refText: string,
  opts: OptionsOf<typeof declaration>,
): Promise<void> {
  const asked = parsePrincipalText(principalText);
  const wanted = opts.privilege?.trim().toUpperCase();
  if (opts.privilege !== undefined && !wanted)
    throw new UsageError('--privilege needs a privilege, e.g. SELECT');
  const ref = parseRefWithId(refText, Boolean(opts.id));
  const { principal, roles, levels, entity, path, explanation } = await explainAccess(ctx, asked, ref);
  const shown = formatPath(path);
  const who = `${principal.kind} ${principal.name}`;

  if (wanted) {
    const offered = levels[0]!.grants.availablePrivileges;
    if (offered && !offered.includes(wanted) && wanted !== 'ALL') {
      throw new UsageError(`${shown} offers no privilege "${wanted}"`, {
        hint: `it offers: ${offered.join(', ')}`,
      });
    }
  }
  await print(ctx, { principal, roles, levels, entityType: entity.entityType, shown, explanation });
  if (!wanted) return;
  const held = explanation.privileges.find((p) => p.privilege === wanted);
  if (held) {
    ctx.ui.notice(`${who} holds ${wanted} on ${shown} through ${describeVia(held.via)}.`);
    return;
  }
  throw new NotHeldError(`${who} does not hold ${wanted} on ${shown}`, {
    hint: nearestGrant(principal, wanted, levels, roles),
  });
}

function describeVia(via: Explanation['privileges'][number]['via']): string {
  if (via.implicit === 'admin') return 'role ADMIN (admins hold every privilege)';
  if (via.implicit === 'owner') return `${via.grantee.replace(':', ' ')} (the owner)`;
  return `a grant to ${via.grantee.replace(':', ' ')} on ${formatPath(via.on)}`;
}

/**
 * The grant that would give the missing privilege with the least reach: the one on the entity itself, to the
 * principal; when a role the user holds already has grants on the chain, granting it there is named too.
 */
function nearestGrant(
  principal: Principal,
  privilege: string,
  levels: readonly Level[],
  roles: readonly HeldRole[],
) {
  const on = formatPath(levels[0]!.path);
  const quoted = (name: string) => (/^[\w.@:-]+$/.test(name) ? name : `'${name.replaceAll("'", "'\\''")}'`);
  const direct = `dlake catalog grants ${quoted(on)} --grant ${quoted(`${principal.kind}:${principal.name}:${privilege}`)}`;
  const roleIds = new Set(roles.map((r) => r.id));
  for (const level of levels) {
    const g = level.grants.grants.find((x) => x.granteeType.toUpperCase() === 'ROLE' && roleIds.has(x.id));
    if (g) {
      const name = g.name ?? roles.find((r) => r.id === g.id)?.name ?? g.id;
      return `the nearest grant is: ${direct} (or add ${privilege} to the grant of role ${name} on ${formatPath(level.path)})`;
    }
  }
  return `the nearest grant is: ${direct}`;
}

interface Report {
  principal: Principal;
  roles: HeldRole[];
  levels: Level[];
  entityType: string;
  shown: string;
  explanation: Explanation;
}

interface Row {
  privilege: string;
  held: boolean;
  via?: Explanation['privileges'][number]['via'];
}

async function print(ctx: Context, r: Report): Promise<void> {
  const data = {
    principal: `${r.principal.kind}:${r.principal.name}`,
    entity: r.shown,
    roles: r.roles.map((x) => ({ name: x.name, ...(x.via ? { via: x.via } : {}) })),
    privileges: r.explanation.privileges.map((p) => ({
      privilege: p.privilege,
      via: {
        grantee: p.via.grantee,
        on: formatPath(p.via.on),
        ...(p.via.implicit ? { implicit: p.via.implicit } : {}),
      },
    })),
    missing: r.explanation.missing,
    grants: r.levels.map((l) => ({
      on: formatPath(l.path),
      grants: l.grants.grants.map((g) => ({
        granteeType: g.granteeType,
        name: g.name ?? g.id,
        privileges: g.privileges,
      })),
    })),
  };
  const rows: Row[] = [
    ...r.explanation.privileges.map((p) => ({ privilege: p.privilege, held: true, via: p.via })),
    ...r.explanation.missing.map((privilege) => ({ privilege, held: false })),
  ];
  if (ctx.format === 'table') {
    // The context first: who, with which roles, on what; then the grants of the chain; then the answer.
    const roleText =
      r.roles.map((x) => (x.via ? `${x.name} (through ${x.via})` : x.name)).join(', ') || 'none';
    const lines = [
      `Principal: ${r.principal.kind} ${r.principal.name}`,
      ...(r.principal.kind === 'user' || r.roles.length ? [`Roles:     ${roleText}`] : []),
      `Entity:    ${r.shown} (${r.entityType})`,
      '',
      'Grants:',
      ...r.levels.flatMap((l) => {
        const on = `  on ${formatPath(l.path)}`;
        if (l.grants.grants.length === 0) return [`${on}: none`];
        return [
          `${on}:`,
          ...l.grants.grants.map(
            (g) =>
              `    ${g.granteeType.toLowerCase()} ${g.name ?? g.id}: ${g.privileges.join(', ')}${appliesNote(r, g)}`,
          ),
        ];
      }),
      '',
    ];
    // Names as the service stores them: control and invisible characters shown, never sent raw to the terminal.
    ctx.streams.stdout.write(`${stderrSafe(lines.join('\n'))}\n`);
  }
  await ctx.print<Row>({
    data,
    rows,
    view: {
      empty: 'The entity offers no privileges.',
      columns: [
        { header: 'PRIVILEGE', value: (x) => x.privilege },
        { header: 'HELD', value: (x) => (x.held ? 'yes' : 'no') },
        { header: 'VIA', value: (x) => (x.via ? viaText(x.via) : '') },
        { header: 'ON', value: (x) => (x.via ? formatPath(x.via.on) : '') },
      ],
    },
  });
}

/** Whether a grant of the chain is the principal's: directly, or through a role it holds. */
function appliesNote(r: Report, g: { granteeType: string; id: string }): string {
  if (g.id === r.principal.id && g.granteeType.toLowerCase() === r.principal.kind) return '  (applies)';
  if (g.granteeType.toUpperCase() !== 'ROLE') return '';
  const role = r.roles.find((x) => x.id === g.id);
  if (!role) return '';
  return role.via ? `  (applies: held through ${role.via})` : '  (applies: held)';
}

function viaText(via: NonNullable<Row['via']>): string {
  const who = via.grantee.replace(':', ' ');
  if (via.implicit === 'admin') return `${who} (admin)`;
  if (via.implicit === 'owner') return `${who} (owner)`;
  return who;
}

export const register = defineGroup([defineCommand(declaration, why)]);
