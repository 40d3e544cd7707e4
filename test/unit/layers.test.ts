// docs/architecture.md, "Layers and the direction of imports", checked on the import specifiers of every file
// under src/ and test/unit (static `from '…'`, side-effect `import '…'` and dynamic `import('…')`): imports
// point down the list, never up. A regex over the text is enough: the code base writes its imports one way.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The unit tests that test the command layer itself, and so may import src/commands (with what they test).
 * A test of a lower layer imports only that layer and below: it checks what that layer says (an error's
 * Advice, say); test/unit/hints.test.ts tests the words the command line makes of it.
 */
const COMMAND_LAYER_TESTS: Record<string, string> = {
  'test/unit/code-cache.test.ts': 'the start-up code cache, one per group of the registry',
  'test/unit/hints.test.ts': "the hint lines the command layer words from the API's advice",
  'test/unit/options.test.ts': 'the option parsers and how the command tree uses them',
  'test/unit/readme.test.ts': 'the README against the command tree',
  'test/unit/render-fuzz.test.ts': '`--data` (readJsonArgument) among the inputs it fuzzes',
  'test/unit/source-state.test.ts': 'the warning `source create|update` gives for an unhealthy source',
};

/** The folders below src/commands, in the order of docs/architecture.md, and the files any layer may use. */
const BELOW_COMMANDS = ['api', 'auth', 'config', 'output', 'export', 'completion', 'shell', 'sql', 'util'];
const ANYWHERE = ['src/errors.ts', 'src/constants.ts', 'src/global-options.ts'];
/** What src/api must not know: the terminal and the command line. */
const NOT_IN_API = {
  folders: ['src/commands/', 'src/output/'],
  files: ['src/runtime.ts', 'src/context.ts'],
  packages: ['commander', '@commander-js/extra-typings', 'chalk', 'ora'],
};

/** Every import specifier in a file's text; whole-line comments are skipped. */
function specifiers(text: string): string[] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .join('\n');
  const found: string[] = [];
  const pattern = /\b(?:from\s*|import\s*\(\s*|import\s+)(['"])([^'"\n]+)\1/g;
  for (const m of code.matchAll(pattern)) found.push(m[2]!);
  return found;
}

/** A relative specifier as the repository path of the .ts file it names; a package as its name. */
function target(file: string, spec: string): { path?: string; pkg?: string } {
  if (!spec.startsWith('.')) {
    const parts = spec.split('/');
    return { pkg: spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
  }
  return { path: posix.join(posix.dirname(file), spec).replace(/\.js$/, '.ts') };
}

/** The rules of docs/architecture.md broken by `files` (repository path → text), one line each. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const broken: string[] = [];
  for (const [file, text] of files) {
    const below = BELOW_COMMANDS.some((d) => file.startsWith(`src/${d}/`)) || ANYWHERE.includes(file);
    for (const spec of specifiers(text)) {
      const { path, pkg } = target(file, spec);
      const say = (rule: string) => broken.push(`${file} imports ${spec}: ${rule}`);
      if (file.startsWith('src/util/') && path?.startsWith('src/')) {
        if (!path.startsWith('src/util/') && !ANYWHERE.includes(path)) {
          say('src/util is the bottom layer and imports no other src folder');
        }
      }
      if (file.startsWith('src/api/')) {
        if (path && (NOT_IN_API.folders.some((d) => path.startsWith(d)) || NOT_IN_API.files.includes(path))) {
          say('src/api knows nothing of the commands, the output, the runtime or the context');
        }
        if (pkg && NOT_IN_API.packages.includes(pkg)) say('src/api knows nothing of commander, chalk or ora');
      }
      if (below && path?.startsWith('src/commands/')) {
        say('nothing below src/commands imports src/commands');
      }
      if (
        file.startsWith('test/unit/') &&
        path?.startsWith('src/commands/') &&
        COMMAND_LAYER_TESTS[file] === undefined
      ) {
        say('a test of a lower layer imports only that layer and below (or list it in COMMAND_LAYER_TESTS)');
      }
    }
  }
  return broken;
}

function read(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|mts)$/.test(entry.name)) continue;
    const full = join(entry.parentPath, entry.name);
    files.set(relative(ROOT, full).split('\\').join('/'), readFileSync(full, 'utf8'));
  }
  return files;
}

/**
 * The import circles among `files` (repository path → text): each a loop of files that import each other,
 * type-only imports included (a circle of types is still two modules that cannot be understood apart), written
 * `a.ts → b.ts → a.ts` from its first file in sort order. Relative imports only: packages cannot loop back.
 */
function circles(files: ReadonlyMap<string, string>): string[] {
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) {
    const to = specifiers(text)
      .map((spec) => target(file, spec).path)
      .filter((path): path is string => path !== undefined && files.has(path));
    edges.set(file, [...new Set(to)].sort());
  }
  // Tarjan's strongly connected components: a component of more than one file, or a file importing itself,
  // is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)?.includes(v)) found.push(loopThrough(component.sort(), edges));
  };
  for (const file of [...files.keys()].sort()) if (!index.has(file)) visit(file);
  return found.sort();
}

/** One loop through a circle's files, from its first: the shortest way back to it (breadth first). */
function loopThrough(component: string[], edges: ReadonlyMap<string, string[]>): string {
  const start = component[0]!;
  const inside = new Set(component);
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = from.get(u))
          path.splice(1, 0, u);
        return `${[...path, start].join(' → ')} (${component.length} file${component.length === 1 ? '' : 's'})`;
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(', ');
}

/** Circles known and being undone elsewhere, each with why; the test below fails once one is gone. */
const KNOWN_CIRCLES: Record<string, string> = {
  'src/export/parquet.ts → src/export/writers.ts → src/export/parquet.ts (2 files)':
    'the export writers are being rewritten; their rewrite removes it',
};

describe('no import circles', () => {
  it('in src/ and emulator/src/', () => {
    const files = new Map([...read('src'), ...read('emulator/src')]);
    expect(circles(files).filter((c) => KNOWN_CIRCLES[c] === undefined)).toEqual([]);
  });

  it('lists no known circle that is gone', () => {
    const found = new Set(circles(new Map([...read('src'), ...read('emulator/src')])));
    expect(Object.keys(KNOWN_CIRCLES).filter((c) => !found.has(c))).toEqual([]);
  });

  it('finds a circle, type-only imports included, and names a way round it', () => {
    const files = new Map([
      ['src/a.ts', "import type { B } from './b.js';"],
      ['src/b.ts', "import { c } from './c.js';"],
      ['src/c.ts', "const a = await import('./a.js');\nimport { d } from './d.js';"],
      ['src/d.ts', "import { e } from 'node:fs';"],
      ['src/e.ts', "import { e } from './e.js';"],
    ]);
    expect(circles(files)).toEqual([
      'src/a.ts → src/b.ts → src/c.ts → src/a.ts (3 files)',
      'src/e.ts → src/e.ts (1 file)',
    ]);
  });
});

describe('layers and the direction of imports', () => {
  it('holds for every file under src/ and test/unit', () => {
    const files = new Map([...read('src'), ...read('test/unit')]);
    // This file's own examples of bad imports, below, are strings, not imports.
    files.delete('test/unit/layers.test.ts');
    expect(files.size).toBeGreaterThan(100);
    expect(violations(files)).toEqual([]);
  });

  it('finds each kind of upward import', () => {
    const bad = new Map([
      ['src/util/x.ts', "import { render } from '../output/render.js';\nimport { E } from '../errors.js';"],
      ['src/api/x.ts', "import chalk from 'chalk';\nconst c = await import('../context.js');"],
      ['src/api/y.ts', "import type { Command } from '@commander-js/extra-typings';"],
      ['src/output/x.ts', "import {\n  examples,\n} from '../commands/common.js';"],
      ['test/unit/x.test.ts', "const { hintFor } = await import('../../src/commands/hints.js');"],
      ['test/unit/options.test.ts', "import { choose } from '../../src/commands/options.js';"],
      ['src/commands/x.ts', "import { Runtime } from '../runtime.js';\n// import '../commands/y.js'"],
    ]);
    expect(violations(bad)).toEqual([
      'src/util/x.ts imports ../output/render.js: src/util is the bottom layer and imports no other src folder',
      'src/api/x.ts imports chalk: src/api knows nothing of commander, chalk or ora',
      'src/api/x.ts imports ../context.js: src/api knows nothing of the commands, the output, the runtime or the context',
      'src/api/y.ts imports @commander-js/extra-typings: src/api knows nothing of commander, chalk or ora',
      'src/output/x.ts imports ../commands/common.js: nothing below src/commands imports src/commands',
      'test/unit/x.test.ts imports ../../src/commands/hints.js: a test of a lower layer imports only that layer and below (or list it in COMMAND_LAYER_TESTS)',
    ]);
  });

  it('lists no exception that is no longer needed', () => {
    for (const test of Object.keys(COMMAND_LAYER_TESTS)) {
      const text = readFileSync(join(ROOT, test), 'utf8');
      expect(
        specifiers(text).some((s) => target(test, s).path?.startsWith('src/commands/')),
        test,
      ).toBe(true);
    }
  });
});
