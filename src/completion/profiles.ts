// `dlake completion --list-profiles`: the profile names, for the scripts to offer after `-p/--profile`.
// It runs on every Tab press, so it reads config.json with a plain JSON.parse (no zod, no conf, no
// network) and, being a completion, prints nothing rather than fail on a missing or corrupt file.
import { readCheckedFile, USER_FILE_MAX_BYTES } from '../util/files.js';

// The scripts split the names on whitespace and hand them to `compgen -W`, which expands `$`: a name outside
// the characters `dlake profile set` accepts (PROFILE_NAME) cannot have been made by dlake, and is skipped.
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function profileNames(configPath: string): string[] {
  let config: unknown;
  try {
    // Checked first: a Tab press never waits on a named pipe or reads a device without end.
    config = JSON.parse(readCheckedFile(configPath, { maxBytes: USER_FILE_MAX_BYTES }).toString('utf8'));
  } catch {
    return [];
  }
  const profiles = (config as { profiles?: unknown } | null)?.profiles;
  if (!profiles || typeof profiles !== 'object' || Array.isArray(profiles)) return [];
  return Object.keys(profiles)
    .filter((name) => SAFE_NAME.test(name))
    .sort();
}
