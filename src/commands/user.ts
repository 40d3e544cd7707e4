// `dlake user create|get|update|delete`: users of the service (Enterprise; get and update also work on the
// community edition). Updates read the user, change only what was given and send the tag just read.
import type { Command } from 'commander';
import type { RoleRef, User } from '../api/schemas.js';
import type { UserChanges } from '../api/users.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { confirmDestructive, examples, printDryRun } from './common.js';

interface NameOptions {
  firstName?: string;
  lastName?: string;
  email?: string;
  dryRun?: boolean;
}

interface CreateOptions extends NameOptions {
  role?: string[];
}

interface UpdateOptions extends NameOptions {
  addRole?: string[];
  removeRole?: string[];
}

interface DeleteOptions {
  version?: string;
  yes?: boolean;
  dryRun?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function register(program: Command, rt: Runtime): void {
  const user = program.command('user').description('Create, inspect, update and delete users');

  user
    .command('create')
    .description('Create a user; the PUBLIC role is always given, --role adds others')
    .argument('<name>', 'user name (unique; cannot be changed later)')
    .option('--first-name <text>', 'first name')
    .option('--last-name <text>', 'last name')
    .option('--email <address>', 'email address')
    .option('--role <name>', 'a role besides PUBLIC (repeatable)', collect)
    .option('--dry-run', 'print the request instead of sending it (role names are still looked up)')
    .addHelpText(
      'after',
      examples(
        'dlake user create bob --first-name Bob --last-name Baker --email bob@example.com',
        'dlake user create etl-bot --role analysts --role loaders',
        'dlake user create carol --role ADMIN --dry-run',
      ),
    )
    .action(rt.action(create));

  user
    .command('get')
    .description('Show a user by id (a UUID) or by name (case-insensitive)')
    .argument('<user>', 'user id or name')
    .addHelpText(
      'after',
      examples(
        'dlake user get bob',
        'dlake user get 6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b -o json',
        "dlake user get bob --query 'roles[].name'",
      ),
    )
    .action(rt.action(get));

  user
    .command('update')
    .description("Change a user's names, email or roles; everything not given stays as it is")
    .argument('<user>', 'user id or name')
    .option('--first-name <text>', 'new first name')
    .option('--last-name <text>', 'new last name')
    .option('--email <address>', 'new email address')
    .option('--add-role <name>', 'give the user this role (repeatable)', collect)
    .option('--remove-role <name>', 'take this role away (repeatable; PUBLIC stays)', collect)
    .option('--dry-run', 'print the request instead of sending it (the user is still read)')
    .addHelpText(
      'after',
      examples(
        'dlake user update bob --email bob@new.example.com',
        'dlake user update bob --add-role analysts --remove-role loaders',
        'dlake user update bob --add-role ADMIN --dry-run',
      ),
    )
    .action(rt.action(update));

  user
    .command('delete')
    .alias('rm')
    .description('Delete a user (asks first on a terminal); needs the Enterprise edition')
    .argument('<user>', 'user id or name')
    .option('--version <tag>', "the user's tag, to delete only that version (default: read it first)")
    .option('-y, --yes', 'do not ask for confirmation (needed without a terminal)')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples(
        'dlake user delete bob',
        'dlake user delete bob --yes',
        'dlake user delete bob --version Ab3xYz9QdE4= -y',
      ),
    )
    .action(rt.action(remove));
}

async function create(ctx: Context, name: string, opts: CreateOptions): Promise<void> {
  if (!name.trim()) throw new UsageError('the user name is empty');
  const client = await ctx.client();
  const [{ getRolesByName, PUBLIC_ROLE }, { createUser, newUserBody }] = await Promise.all([
    import('../api/roles.js'),
    import('../api/users.js'),
  ]);
  // Looking PUBLIC up too gives its id, and tells a community-edition server (no roles) before writing.
  const roles = await getRolesByName(client, [PUBLIC_ROLE, ...(opts.role ?? [])], 'creating users');
  const body = newUserBody({ name, ...names(opts) }, roles);
  if (opts.dryRun) return printDryRun(ctx, { method: 'POST', path: '/api/v3/user', json: body });
  const created = await createUser(client, body);
  await printUser(ctx, created);
  ctx.ui.notice(`Created user ${created.name} (id ${created.id}).`);
}

async function get(ctx: Context, ref: string): Promise<void> {
  const client = await ctx.client();
  const { resolveUser } = await import('../api/users.js');
  await printUser(ctx, await resolveUser(client, ref));
}

async function update(ctx: Context, ref: string, opts: UpdateOptions): Promise<void> {
  const { checkRoleChanges, hasChanges, mergeUser, resolveUser, rolesToLookUp, updateUser, userPath } =
    await import('../api/users.js');
  const changes: UserChanges = { ...names(opts), addRoles: opts.addRole, removeRoles: opts.removeRole };
  if (!hasChanges(changes)) {
    throw new UsageError('nothing to change', {
      hint: 'give --first-name, --last-name, --email, --add-role or --remove-role',
    });
  }
  checkRoleChanges(changes);
  const client = await ctx.client();
  const current = await resolveUser(client, ref);
  const lookUp = rolesToLookUp(current, changes);
  let roles: RoleRef[] = [];
  if (lookUp.length) {
    const { getRolesByName } = await import('../api/roles.js');
    roles = await getRolesByName(client, lookUp);
  }
  const merged = mergeUser(current, changes, roles);
  for (const note of merged.unchanged) ctx.ui.notice(`note: ${current.name} ${note}`);
  if (merged.changed.length === 0) {
    ctx.ui.notice(`Nothing to change: user ${current.name} is already as asked.`);
    if (!opts.dryRun) await printUser(ctx, current);
    return;
  }
  if (opts.dryRun) return printDryRun(ctx, { method: 'PUT', path: userPath(current.id), json: merged.body });
  const updated = await updateUser(client, merged.body);
  await printUser(ctx, updated);
  ctx.ui.notice(`Updated user ${updated.name}: ${merged.changed.join(', ')}.`);
}

async function remove(ctx: Context, ref: string, opts: DeleteOptions): Promise<void> {
  const { deleteUser, deleteUserRequest, lookupUser } = await import('../api/users.js');
  const { isUuid } = await import('../util/catalog-ref.js');
  const client = await ctx.client();
  // The tag is read unless given; a name needs one read anyway, for the id.
  const known = opts.version && isUuid(ref) ? undefined : await lookupUser(client, ref);
  const id = known?.id ?? ref;
  const version = opts.version ?? known!.tag;
  if (opts.dryRun) return printDryRun(ctx, deleteUserRequest(id, version));
  const who = known ? `user "${known.name}" (id ${id})` : `user ${id}`;
  await confirmDestructive(ctx, `delete ${who}?`, opts.yes);
  await deleteUser(client, id, version);
  ctx.ui.notice(`Deleted ${who}.`);
}

function names(opts: NameOptions): Pick<UserChanges, 'firstName' | 'lastName' | 'email'> {
  return { firstName: opts.firstName, lastName: opts.lastName, email: opts.email };
}

const USER_FIELDS = ['id', 'name', 'firstName', 'lastName', 'email', 'roles', 'source', 'active', 'tag'];

/** json: the service's object; table/csv: one row per field, roles as a list of names. */
function printUser(ctx: Context, user: User): Promise<void> {
  const rest = Object.keys(user).filter((k) => !USER_FIELDS.includes(k));
  const rows = [...USER_FIELDS, ...rest]
    .filter((key) => user[key] !== undefined)
    .map((key) => ({
      key,
      value: key === 'roles' ? (user.roles ?? []).map((r) => r.name).join(', ') : user[key],
    }));
  return ctx.print({
    data: user,
    rows,
    view: {
      columns: [
        { header: 'FIELD', value: (r) => r.key },
        { header: 'VALUE', value: (r) => r.value },
      ],
    },
  });
}
