// Regenerates completions/dlake.bash, completions/_dlake and completions/dlake.fish from the command tree.
// Run after changing commands or options: `npm run completions` (npx tsx scripts/gen-completions.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// The build inlines the version; running from source under tsx, the tree still needs it.
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
(globalThis as { __DLAKE_VERSION__?: string }).__DLAKE_VERSION__ ??= version;

const { COMPLETION_FILES, SHELLS, completionScript } = await import('../src/completion/generate.js');
const { fullTree } = await import('../src/runtime.js');
const program = await fullTree();
for (const shell of SHELLS) {
  const file = resolve(root, COMPLETION_FILES[shell]);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, completionScript(shell, program));
  process.stdout.write(`wrote ${COMPLETION_FILES[shell]}\n`);
}
