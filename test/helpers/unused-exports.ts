// Lists the exports of src/ that no other file of the project uses, with the TypeScript compiler's type checker:
// every identifier of every file that may name an export is resolved to the declaration it names, and an export
// of src/ that no other file names is dead. Used by test/unit/unused-exports.test.ts and a manual run:
// `npx tsx test/helpers/unused-exports.ts`.
//
// Kept cheap (a full type check of the project and its dependencies' typings took ~25 s of CPU here):
// - The program reads only the project's own files and TypeScript's standard library. Every other file (a
//   dependency's typings, @types/node) is read as empty: an export of the project is named through an import of
//   its module, a namespace, a destructured `await import()` or an import type, and none of those goes through
//   a dependency's types; the standard library stays for the Promise of `await import()`.
// - Only identifiers spelt as some export of src/ is (or a default import) are resolved: no other identifier
//   can name one.
// - Doc comments are not parsed: the walk below never enters them.
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

/** A compiler host that reads the project's files and TypeScript's standard library, and nothing else. */
function projectOnlyHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseNone;
  const libDir = dirname(host.getDefaultLibFileName(options));
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, create) => {
    const own = fileName.startsWith(`${ROOT}/`) && !fileName.includes('/node_modules/');
    const lib = dirname(fileName) === libDir && /\/lib\.[\w.]+\.d\.ts$/.test(fileName);
    return own || lib
      ? read(fileName, language, onError, create)
      : ts.createSourceFile(fileName, '', language);
  };
  return host;
}

export function unusedExports(): string[] {
  const files = ['src', 'test', 'scripts', 'bench', 'emulator/src', 'emulator/test'].flatMap(filesUnder);
  const projectFiles = new Set(files);
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile).config,
    ts.sys,
    ROOT,
  );
  const options = { ...config.options, noEmit: true };
  const program = ts.createProgram(files, options, projectOnlyHost(options));
  const checker = program.getTypeChecker();
  const declOf = (symbol: ts.Symbol | undefined): ts.Declaration | undefined => {
    if (!symbol) return undefined;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return target.declarations?.[0];
  };
  const srcFiles = program.getSourceFiles().filter((s) => relative(ROOT, s.fileName).startsWith('src/'));

  // The names src/ exports: an identifier spelt otherwise names none of its exports.
  const exportNames = new Set<string>();
  for (const source of srcFiles) {
    const moduleSymbol = checker.getSymbolAtLocation(source);
    for (const exp of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [])
      exportNames.add(exp.getName());
  }

  // Every declaration that some file names, with the files that name it.
  const usedFrom = new Map<ts.Declaration, Set<string>>();
  const use = (decl: ts.Declaration | undefined, file: string) => {
    if (!decl) return;
    const set = usedFrom.get(decl) ?? new Set<string>();
    set.add(file);
    usedFrom.set(decl, set);
  };
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || !projectFiles.has(source.fileName)) continue;
    const visit = (node: ts.Node): void => {
      // `import x from './m.js'` names m's default export by any name.
      if (ts.isIdentifier(node) && (exportNames.has(node.text) || ts.isImportClause(node.parent))) {
        use(declOf(checker.getSymbolAtLocation(node)), source.fileName);
      }
      // `const { a } = await import('./m.js')`: the property `a` of the module names m's export.
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const key = node.propertyName ?? node.name;
        if (ts.isIdentifier(key) && exportNames.has(key.text)) {
          const type = checker.getTypeAtLocation(node.parent);
          use(declOf(type.getProperty(key.text)), source.fileName);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }

  const unused: string[] = [];
  for (const source of srcFiles) {
    const file = relative(ROOT, source.fileName);
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
