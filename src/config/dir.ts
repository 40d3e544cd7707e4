// Where dlake keeps its files. A module of its own because the launcher (src/boot.ts) needs it before
// anything else is loaded.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `DLAKE_CONFIG_DIR`, else the platform's config folder for dlake (`~/.config/dlake` on Linux). */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.DLAKE_CONFIG_DIR) return env.DLAKE_CONFIG_DIR;
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'dlake');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'dlake');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'dlake');
}
