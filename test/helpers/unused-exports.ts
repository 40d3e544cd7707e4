// Lists the exports of src/ that no other file of the project uses, with the TypeScript compiler's type checker:
// every identifier of every file is resolved to the declaration it names, and an export of src/ that no other
// file names is dead. Used by test/unit/unused-exports.test.ts and a manual run:
// `npx tsx test/helpers/unused-exports.ts`.
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Exports used through an interface rather than by name: each command module's `register` is called through the
 * group registry (src/commands/registry.ts) or a group's list of verbs; `boot` is the launcher's entry, called by
 * bin/dlake.js, and `main` the bundle's, called by the launcher.
 */
const USED_BY_CONVENTION = [/^src\/commands\/.*:register$/, /^src\/cli\.ts:main$/, /^src\/boot\.ts:boot$/];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

export function unusedExports(): string[] {
  const files = ['src', 'test', 'scripts', 'bench', 'emulator/src', 'emulator/test'].flatMap(filesUnder);
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config,
    ts.sys,
    ROOT,
  );
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const declOf = (symbol: ts.Symbol | undefined): ts.Declaration | undefined => {
    if (!symbol) return undefined;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return target.declarations?.[0];
  };

  // Every declaration that some file names, with the files that name it.
  const usedFrom = new Map<ts.Declaration, Set<string>>();
  const use = (decl: ts.Declaration | undefined, file: string) => {
    if (!decl) return;
    const set = usedFrom.get(decl) ?? new Set<string>();
    set.add(file);
    usedFrom.set(decl, set);
  };
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || !files.includes(source.fileName)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) use(declOf(checker.getSymbolAtLocation(node)), source.fileName);
      // `const { a } = await import('./m.js')`: the property `a` of the module names m's export.
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const key = node.propertyName ?? node.name;
        if (ts.isIdentifier(key)) {
          const type = checker.getTypeAtLocation(node.parent);
          use(declOf(type.getProperty(key.text)), source.fileName);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }

  const unused: string[] = [];
  for (const source of program.getSourceFiles()) {
    const file = relative(ROOT, source.fileName);
    if (!file.startsWith('src/')) continue;
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const exp of checker.getExportsOfModule(moduleSymbol)) {
      const decl = declOf(exp);
      if (!decl || decl.getSourceFile() !== source) continue; // a re-export is judged where it is declared
      const others = [...(usedFrom.get(decl) ?? [])].filter((f) => f !== source.fileName);
      const id = `${file}:${exp.getName()}`;
      if (others.length === 0 && !USED_BY_CONVENTION.some((re) => re.test(id))) unused.push(id);
    }
  }
  return unused.sort();
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  for (const u of unusedExports()) console.log(u);
}
