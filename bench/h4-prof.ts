import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN, cleanEnv, runDlake } from '../test/helpers/dlake.js';
import { run } from './session.js';
const dir = '/tmp/h4prof';
const emu = await startEmulator();
const files = join(dir, 'lake');
for (let f = 0; f < 40; f++) {
  for (let v = 0; v < 49; v++) {
    const p = join(files, 'p0', `f${f}`, `v${v}.yaml`);
    mkdirSync(join(p, '..'), { recursive: true });
    const sql = v > 0 ? `SELECT n + 1 AS n FROM p0.f${f}.v${v - 1}` : `SELECT 1 AS n`;
    writeFileSync(p, `kind: view\npath: ${JSON.stringify(['p0', `f${f}`, `v${v}`])}\nsql: '${sql}'\n${v % 3 === 0 ? 'tags: [gold]\n' : ''}`);
  }
  writeFileSync(join(files, 'p0', `f${f}.yaml`), `kind: folder\npath: ["p0","f${f}"]\n`);
}
writeFileSync(join(files, 'p0.yaml'), `kind: space\npath: ["p0"]\n`);
const env = cleanEnv({ DLAKE_CONFIG_DIR: join(dir, 'config'), DLAKE_URL: emu.url });
await runDlake(['login', '-u', 'admin', '--password-stdin'], { input: 'admin-pass-1', env });
for (const [name, args] of [['apply', ['apply', '--dir', files, '-q']], ['pull', ['pull', '--dir', join(dir, 'pulled'), '-q']], ['plan', ['plan', '--dir', join(dir, 'pulled')]]] as const) {
  const r = await run('/usr/bin/time', ['-f', '%U %S %M', '-o', join(dir, `${name}.time`), process.execPath, '--cpu-prof', '--cpu-prof-dir', join(dir, name), BIN, ...args], env);
  console.log(name, r.ms.toFixed(0), 'ms', (await import('node:fs')).readFileSync(join(dir, `${name}.time`), 'utf8').trim());
}
await emu.close();
