// docs/architecture.md, "Layers and the direction of imports", checked on the import specifiers of every file
// under src/ and test/unit (static `from '…'`, side-effect `import '…'` and dynamic `import('…')`): every file
// has a rank, read from the numbered list in that document, and an import goes to a higher number (further
// down) or stays in its own folder or file. A regex over the text is enough: the code base writes its imports
// one way.
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
  'test/unit/options.test.ts': 'the option parsers and how the command tree uses them',
  'test/unit/readme.test.ts': 'the README against the command tree',
  'test/unit/render-fuzz.test.ts': '`--data` (readJsonArgument) among the inputs it fuzzes',
  'test/unit/source-state.test.ts': 'the warning `source create|update` gives for an unhealthy source',
  'test/unit/top-selection.test.ts': "`top`'s selection across a refresh",
};

/** What a layer must not know of the packages, besides the rank. */
const FORBIDDEN_PACKAGES: Record<string, { packages: string[]; rule: string }> = {
  'src/api/': {
    packages: ['commander', '@commander-js/extra-typings', 'chalk', 'ora'],
    rule: 'src/api knows nothing of commander, chalk or ora',
  },
  'src/commands/': {
    packages: ['undici'],
    rule: 'src/commands never imports undici (HTTP lives in src/api)',
  },
};

/** One layer of the list: a folder (ending in /) or a file, and its number. */
interface Layer {
  rank: number;
  unit: string;
}

/** The numbered list of docs/architecture.md's "Layers and the direction of imports" block. */
function layersOf(doc: string): Layer[] {
  const section = doc.split('## Layers and the direction of imports')[1]?.split('\n## ')[0] ?? '';
  const block = section.split('```')[1] ?? '';
  const layers: Layer[] = [];
  for (const line of block.split('\n')) {
    const m = /^\s*(\d+)\s+(src\/\S+)/.exec(line);
    if (m) layers.push({ rank: Number(m[1]), unit: m[2]! });
  }
  return layers;
}

const LAYERS = layersOf(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

/** The layer of a repository path under src/ (undefined: in no layer of the list). */
function layerOf(path: string, layers: readonly Layer[]): Layer | undefined {
  return layers.find((l) => (l.unit.endsWith('/') ? path.startsWith(l.unit) : path === l.unit));
}

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
function violations(files: ReadonlyMap<string, string>, layers: readonly Layer[] = LAYERS): string[] {
  const broken: string[] = [];
  for (const [file, text] of files) {
    const from = file.startsWith('src/') ? layerOf(file, layers) : undefined;
    if (file.startsWith('src/') && !from) {
      broken.push(`${file}: in no layer of docs/architecture.md (add its folder or file to the list)`);
    }
    for (const spec of specifiers(text)) {
      const { path, pkg } = target(file, spec);
      const say = (rule: string) => broken.push(`${file} imports ${spec}: ${rule}`);
      const to = path?.startsWith('src/') ? layerOf(path, layers) : undefined;
      if (from && to && from.unit !== to.unit && to.rank <= from.rank) {
        say(`${from.unit} (${from.rank}) may import only what is below it, not ${to.unit} (${to.rank})`);
      }
      for (const [dir, forbidden] of Object.entries(FORBIDDEN_PACKAGES)) {
        if (file.startsWith(dir) && pkg && forbidden.packages.includes(pkg)) say(forbidden.rule);
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
const KNOWN_CIRCLES: Record<string, string> = {};

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
  it('reads a rank for every layer from docs/architecture.md', () => {
    expect(LAYERS.length).toBeGreaterThan(15);
    expect(LAYERS.map((l) => l.unit)).toContain('src/ops/');
    // Numbered from the top, never going back up.
    for (let i = 1; i < LAYERS.length; i++)
      expect(LAYERS[i]!.rank).toBeGreaterThanOrEqual(LAYERS[i - 1]!.rank);
  });

  it('holds for every file under src/ and test/unit', () => {
    const files = new Map([...read('src'), ...read('test/unit')]);
    // This file's own examples of bad imports, below, are strings, not imports.
    files.delete('test/unit/layers.test.ts');
    expect(files.size).toBeGreaterThan(100);
    expect(violations(files)).toEqual([]);
  });

  it('finds each kind of upward import', () => {
    const layers = layersOf(
      [
        '## Layers and the direction of imports',
        '```',
        ' 1 src/commands/   the commands',
        ' 2 src/mcp/        the server',
        ' 2 src/shell/      the shell',
        ' 3 src/context.ts  the context',
        ' 4 src/output/     the output',
        ' 5 src/api/        the service',
        ' 6 src/util/       helpers',
        ' 7 src/errors.ts   errors',
        '```',
        '## Next',
      ].join('\n'),
    );
    const bad = new Map([
      ['src/util/x.ts', "import { render } from '../output/render.js';\nimport { E } from '../errors.js';"],
      ['src/api/x.ts', "import chalk from 'chalk';\nconst c = await import('../context.js');"],
      ['src/api/y.ts', "import type { Command } from '@commander-js/extra-typings';"],
      ['src/output/x.ts', "import {\n  examples,\n} from '../commands/common.js';"],
      ['src/mcp/x.ts', "import { shell } from '../shell/shell.js';\nimport { api } from '../api/x.js';"],
      ['src/commands/x.ts', "import { Agent } from 'undici';\n// import '../commands/y.js'"],
      ['src/nowhere.ts', "import { E } from './errors.js';"],
      ['test/unit/x.test.ts', "const { hintFor } = await import('../../src/commands/hints.js');"],
      ['test/unit/options.test.ts', "import { choose } from '../../src/commands/options.js';"],
    ]);
    expect(violations(bad, layers)).toEqual([
      'src/util/x.ts imports ../output/render.js: src/util/ (6) may import only what is below it, not src/output/ (4)',
      'src/api/x.ts imports chalk: src/api knows nothing of commander, chalk or ora',
      'src/api/x.ts imports ../context.js: src/api/ (5) may import only what is below it, not src/context.ts (3)',
      'src/api/y.ts imports @commander-js/extra-typings: src/api knows nothing of commander, chalk or ora',
      'src/output/x.ts imports ../commands/common.js: src/output/ (4) may import only what is below it, not src/commands/ (1)',
      'src/mcp/x.ts imports ../shell/shell.js: src/mcp/ (2) may import only what is below it, not src/shell/ (2)',
      'src/commands/x.ts imports undici: src/commands never imports undici (HTTP lives in src/api)',
      'src/nowhere.ts: in no layer of docs/architecture.md (add its folder or file to the list)',
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
