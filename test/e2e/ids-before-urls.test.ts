// Ids and names are checked before they become URL paths: `.`, `..`, empty values and control
// characters are refused with exit 2 and no request at all, in every command that puts one in a path.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/dlake.js';
import { expectFailure } from '../helpers/fixture.js';
import { runInProcess } from '../helpers/in-process.js';

let emu: Emulator;
let cfg: { dir: string; cleanup: () => void };
const run = (args: string[]) =>
  runInProcess(args, { env: { DLAKE_CONFIG_DIR: cfg.dir, DLAKE_URL: emu.url } });

beforeAll(async () => {
  emu = await startEmulator();
  cfg = tempConfigDir();
  const login = await runInProcess(['login', '-u', 'admin', '--password-stdin'], {
    env: { DLAKE_CONFIG_DIR: cfg.dir, DLAKE_URL: emu.url },
    input: 'admin-pass-1\n',
  });
  expect(login.code, login.stderr).toBe(0);
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
});

const BAD = ['..', '.', '', 'bob\u0007', 'x\ny'];

const COMMANDS: Array<[string, (id: string) => string[]]> = [
  ['job get', (id) => ['job', 'get', id]],
  ['job cancel -y', (id) => ['job', 'cancel', id, '-y']],
  ['job cancel --dry-run', (id) => ['job', 'cancel', id, '--dry-run']],
  ['job wait', (id) => ['job', 'wait', id]],
  ['job results', (id) => ['job', 'results', id]],
  ['job export', (id) => ['job', 'export', id, '--out', join(cfg.dir, 'rows.csv')]],
  ['catalog get --id', (id) => ['catalog', 'get', '--id', id]],
  ['catalog delete --id -y', (id) => ['catalog', 'delete', '--id', id, '-y']],
  ['catalog get PATH', (id) => ['catalog', 'get', `Samples/"${id.replaceAll('"', '""')}"`]],
  ['catalog ls PATH', (id) => ['catalog', 'ls', `"${id}"/x`]],
  ['source get', (id) => ['source', 'get', id]],
  ['source delete -y', (id) => ['source', 'delete', id, '-y']],
  ['user get', (id) => ['user', 'get', id]],
  ['user delete -y', (id) => ['user', 'delete', id, '-y']],
  ['user update', (id) => ['user', 'update', id, '--first-name', 'X']],
  ['user create --role', (id) => ['user', 'create', 'newbie', '--role', id]],
  ['pat list', (id) => ['pat', 'list', id]],
  ['pat create', (id) => ['pat', 'create', id, '--label', 'x', '--expires', '1d']],
  ['queue get', (id) => ['queue', 'get', id]],
  ['queue delete --dry-run', (id) => ['queue', 'delete', id, '--dry-run']],
  ['queue update', (id) => ['queue', 'update', id, '--max-running-jobs', '3']],
];

describe.each(COMMANDS)('%s', (_name, argsFor) => {
  it.each(BAD)('refuses %j: exit 2, one error line, no request', async (id) => {
    emu.log.clear();
    const r = await run(argsFor(id));
    // An empty value of a repeatable option (user create --role "") is refused by its parser already.
    expectFailure(r, 2, /^error: .*(empty|needs a value|would change the URL's path|control character)/);
    expect(emu.log.entries).toEqual([]);
  });
});

it('no export file is left behind by a refused job id', () => {
  expect(existsSync(join(cfg.dir, 'rows.csv'))).toBe(false);
  expect(existsSync(join(cfg.dir, 'rows.csv.partial'))).toBe(false);
});

it('an id with unusual characters is percent-encoded as one path segment', async () => {
  emu.log.clear();
  const r = await run(['job', 'get', 'a/b?c#d%e f']);
  expect(r.code).toBe(4);
  expect(emu.log.entries.map((e) => e.path)).toEqual(['/api/v3/job/a%2Fb%3Fc%23d%25e%20f']);
});
