// `dlake profile set NAME`: create or change a profile from the global --url, --auth-url, --edition,
// --project-id, --flight-url and -o values. Every one of them given is stored, or the command is refused:
// none is dropped without a word.
import type { Command } from '@commander-js/extra-typings';
import { defaultEdition, type Edition, parseEdition, parseProjectId } from '../../api/roots.js';
import { describeMove, pointProfileAt } from '../../auth/place.js';
import { PROFILE_NAME, PROFILE_NAME_HINT, type Profile } from '../../config/schema.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { OUTPUT_FORMATS } from '../../global-options.js';
import { normalizeServiceUrl, sameServiceUrl } from '../../util/url.js';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';

const declaration = (profile: Command) =>
  profile
    .command('set')
    .description(
      'Create or change a profile: takes the global --url, --auth-url, --edition, --project-id, --flight-url and -o values',
    )
    .argument('<name>', 'profile name')
    .addHelpText(
      'after',
      examples(
        'dlake profile set prod --url https://lake.example.com',
        'dlake profile set prod --auth-url https://login.example.com -o json',
        'dlake profile set lab --url http://localhost:9047 --edition software',
      ),
    );

export const register = defineCommand(declaration, set);

/** Global options that a profile does not store: given to `profile set`, they would be lost. */
const NOT_STORED = [
  ['timeout', '--timeout', 'DLAKE_TIMEOUT'],
  ['caFile', '--ca-file', 'DLAKE_CA_FILE'],
  ['insecure', '--insecure', undefined],
] as const;

async function set(ctx: Context, name: string): Promise<void> {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, { hint: PROFILE_NAME_HINT });
  }
  for (const [key, flag, variable] of NOT_STORED) {
    if (ctx.opts[key] !== undefined) {
      throw new UsageError(`a profile does not store ${flag}`, {
        hint: variable
          ? `give ${flag} to each command, or set ${variable} in the environment`
          : `give ${flag} to each command`,
      });
    }
  }
  const { url, authUrl, output, edition, projectId, flightUrl } = ctx.opts;
  const patch: Partial<Profile> = {};
  if (url) patch.url = normalizeServiceUrl(url, '--url');
  if (authUrl) patch.authUrl = normalizeServiceUrl(authUrl, '--auth-url');
  if (output) {
    if (!(OUTPUT_FORMATS as readonly string[]).includes(output))
      throw new UsageError(`unknown output format "${output}"`);
    patch.output = output as Profile['output'];
  }
  if (flightUrl) {
    const { parseFlightUrl } = await import('../../export/flight/endpoint.js');
    patch.flightUrl = parseFlightUrl(flightUrl).url;
  }
  const project = projectId ? parseProjectId(projectId, '--project-id') : undefined;
  // Only the hosted edition has projects: --project-id implies it, and goes with no other.
  const ed: Edition | undefined = edition
    ? parseEdition(edition, '--edition')
    : project
      ? 'cloud'
      : undefined;
  if (ed === 'software' && project) {
    throw new UsageError('--project-id names a project of the hosted edition, but --edition is software', {
      hint: 'use --edition cloud with --project-id, or leave --project-id out',
    });
  }
  let before: Profile | undefined;
  const snapshot = await ctx.store.update((s) => {
    before = s.config.profiles[name];
    if (!before && !patch.url) {
      throw new UsageError(`profile "${name}" does not exist yet: give its URL`, {
        hint: `dlake profile set ${name} --url URL`,
      });
    }
    s.config.profiles[name] = changed(before, patch, ed, project);
    s.config.currentProfile ??= name;
  });
  const current = snapshot.config.currentProfile === name ? ' (current)' : '';
  const moved = describeMove(before, snapshot.config.profiles[name]!);
  ctx.ui.notice(`Saved profile "${name}"${current}${moved ? `: ${moved}` : ''}.`);
}

/**
 * The profile with what was given: a new URL drops what the profile stored for the old one (its token and Flight
 * endpoints, its edition and project) unless given again, as a login to another URL does (src/auth/place.ts).
 */
function changed(
  before: Profile | undefined,
  patch: Partial<Profile>,
  edition: Edition | undefined,
  projectId: string | undefined,
): Profile {
  const url = patch.url ?? before?.url ?? '';
  const moved =
    before?.url !== undefined && patch.url !== undefined && !sameServiceUrl(before.url, patch.url);
  const next: Profile = moved ? pointProfileAt(before, { url, edition: defaultEdition(url) }) : { ...before };
  Object.assign(next, patch);
  if (edition) {
    next.edition = edition;
    if (edition === 'software') delete next.projectId;
  }
  if (projectId) next.projectId = projectId;
  return next;
}
