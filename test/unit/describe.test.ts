// `dlake describe`: the command tree as data, checked against what `dlake help COMMAND` prints for every
// command (options, arguments, examples), so that the two can never drift; one command; unknown commands.
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { runInProcess } from '../helpers/in-process.js';

interface Opt {
  long: string | null;
  short: string | null;
  takesValue: boolean;
  choices: string[] | null;
  env: string | null;
}
interface Cmd {
  path: string[];
  summary: string;
  description: string;
  aliases: string[];
  arguments: { name: string; required: boolean; variadic: boolean }[];
  options: Opt[];
  examples: string[];
  subcommands: string[];
}

/** The command names a help text lists (its command lines, `name [options] …  summary`), help itself aside. */
function helpCommands(help: string): string[] {
  const after = help.slice(help.indexOf('\n\n', help.indexOf('Options:')));
  return [...after.matchAll(/^ {2}([a-z][\w-]*)(?:\|[a-z]+)?(?= |$)/gm)]
    .map((m) => m[1]!)
    .filter((n) => n !== 'help');
}

/** The option lines of a help section (`Options:` or `Global Options:`): their flags, as printed. */
function helpOptions(
  help: string,
  section: string,
): { short?: string; long?: string; takesValue: boolean }[] {
  const lines = help.split('\n');
  const at = lines.indexOf(`${section}:`);
  if (at < 0) return [];
  const out = [];
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '') break;
    const m = /^ {2}(-\S.*?)(?: {2,}|$)/.exec(line);
    if (!m) continue;
    const flags = m[1]!;
    out.push({
      short: /(?:^|, )(-[a-zA-Z])\b/.exec(flags)?.[1],
      long: /(--[a-z][\w-]*)/.exec(flags)?.[1],
      takesValue: /[<[]/.test(flags),
    });
  }
  return out.filter((o) => o.long !== '--help');
}

/** An example's words, whatever spaces stand between them. */
const words = (example: string) => example.replace(/\s+/g, ' ').trim();

/** The examples of a help text: each `$` line with its continuation lines (` \\`) and the `#` comment above it. */
function helpExamples(help: string): string[] {
  const out: string[] = [];
  let comment: string[] = [];
  let current: string | undefined;
  for (const line of help.split('\n')) {
    if (current?.endsWith(' \\')) {
      current = `${current.slice(0, -2)} ${line.trim()}`;
      if (!current.endsWith(' \\')) {
        out.push(comment.length ? `${current}  # ${comment.join(' ')}` : current);
        comment = [];
        current = undefined;
      }
      continue;
    }
    const note = /^ {2}# (.*)$/.exec(line);
    if (note) {
      comment.push(note[1]!);
      continue;
    }
    const m = /^ {2}\$ (.*)$/.exec(line);
    if (!m) continue;
    current = m[1]!.trimEnd();
    if (!current.endsWith(' \\')) {
      out.push(comment.length ? `${current}  # ${comment.join(' ')}` : current);
      comment = [];
      current = undefined;
    }
  }
  return out;
}

const describeJson = async (...words: string[]) => {
  const r = await runInProcess(['describe', ...words, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    exitCodes: { code: number; meaning: string }[];
    globalOptions: Opt[];
    commands: Cmd[];
  };
};

describe('dlake describe', () => {
  it('lists every command as `dlake help COMMAND` shows it: options, arguments, examples', async () => {
    const all = await describeJson();
    expect(all.commands.length).toBeGreaterThan(70);
    const root = await runInProcess(['--help']);
    for (const c of all.commands) {
      const r = await runInProcess(['help', ...c.path]);
      expect(r.code, c.path.join(' ')).toBe(0);
      const help = r.stdout;
      const label = `dlake ${c.path.join(' ')}`;
      const usage = help.split('\n')[0]!;
      if (c.subcommands.length > 0) {
        // A group: its commands as its help lists them, its summary as its parent's help does.
        expect(usage, label).toBe(`Usage: ${label} [options] [command]`);
        expect(c.subcommands, label).toEqual(helpCommands(help));
        const parent = c.path.length === 1 ? root : await runInProcess(['help', ...c.path.slice(0, -1)]);
        expect(parent.stdout.replace(/\s+/g, ' '), label).toContain(c.summary.replace(/\s+/g, ' '));
        continue;
      }
      // Usage line: every argument, in order, with its brackets.
      const args = c.arguments.map((a) => {
        const name = `${a.name}${a.variadic ? '...' : ''}`;
        return a.required ? `<${name}>` : `[${name}]`;
      });
      expect(usage, label).toBe(
        `Usage: ${[label, ...c.aliases].join('|')} [options]${args.length ? ` ${args.join(' ')}` : ''}`,
      );
      // Options: the same set, the same spellings, whether each takes a value.
      const printed = helpOptions(help, 'Options');
      expect(
        c.options.map((o) => ({
          short: o.short ?? undefined,
          long: o.long ?? undefined,
          takesValue: o.takesValue,
        })),
        label,
      ).toEqual(printed);
      for (const o of c.options)
        if (o.choices)
          expect(help.replace(/\s+/g, ' '), `${label} ${o.long}`).toContain(
            `choices: "${o.choices.join('", "')}"`,
          );
      // Examples: the `$ …` lines of the help, in order (one too wide for the help is broken over lines, its
      // comment above it: read back whole).
      expect(c.examples.map(words), label).toEqual(helpExamples(help).map(words));
      // The description as its own help says it; the summary as its parent's help lists it.
      expect(help.replace(/\s+/g, ' '), label).toContain(c.description.replace(/\s+/g, ' '));
      const parent = c.path.length === 1 ? root : await runInProcess(['help', ...c.path.slice(0, -1)]);
      expect(parent.stdout.replace(/\s+/g, ' '), label).toContain(c.summary.replace(/\s+/g, ' '));
    }
    // Global options as `dlake help global-options` lists them.
    const globals = (await runInProcess(['help', 'global-options'])).stdout.replace(
      /^Global options:.*$/m,
      '',
    );
    expect(
      all.globalOptions.map((o) => ({
        short: o.short ?? undefined,
        long: o.long ?? undefined,
        takesValue: o.takesValue,
      })),
    ).toEqual(helpOptions(`Options:\n${globals.slice(globals.indexOf('\n  -') + 1)}`, 'Options'));
    expect(all.globalOptions.find((o) => o.long === '--profile')).toMatchObject({
      short: '-p',
      env: 'DLAKE_PROFILE',
    });
  });

  it('has an entry for every node the help lists: each command of `dlake --help` and of each group', async () => {
    const all = await describeJson();
    const paths = new Set(all.commands.map((c) => c.path.join(' ')));
    const listed = async (path: string[]): Promise<string[]> => {
      const help = (await runInProcess(path.length ? ['help', ...path] : ['--help'])).stdout;
      const names = helpCommands(help).map((n) => [...path, n]);
      const below = await Promise.all(
        names
          .filter((p) => all.commands.find((c) => c.path.join(' ') === p.join(' '))?.subcommands.length)
          .map(listed),
      );
      return [...names.map((p) => p.join(' ')), ...below.flat()];
    };
    const nodes = await listed([]);
    expect(nodes.length).toBeGreaterThan(100);
    expect(nodes.filter((n) => !paths.has(n))).toEqual([]);
    expect([...paths].filter((p) => !nodes.includes(p))).toEqual([]);
    for (const group of ['token', 'profile', 'catalog', 'source'])
      expect(all.commands.find((c) => c.path.join(' ') === group)).toMatchObject({
        subcommands: expect.arrayContaining([expect.any(String)]),
      });
  });

  it('every exit code, with its meaning', async () => {
    const { exitCodes } = await describeJson();
    expect(exitCodes.map((e) => e.code)).toEqual([...new Set(Object.values(ExitCode))].sort((a, b) => a - b));
    expect(exitCodes.find((e) => e.code === 4)?.meaning).toBe('not found (404)');
  });

  it('one command with its words, a group as its commands, in json and as text', async () => {
    const one = await describeJson('job', 'wait');
    expect(one.commands).toEqual([expect.objectContaining({ path: ['job', 'wait'] })]);
    expect(one.commands[0]!.arguments).toEqual([
      { name: 'id', description: 'job id', required: true, variadic: false, choices: null },
    ]);
    expect(one.commands[0]!.options.find((o) => o.long === '--timeout')).toMatchObject({
      takesValue: true,
      env: null,
    });
    const group = await describeJson('catalog');
    expect(group.commands[0]).toMatchObject({
      path: ['catalog'],
      subcommands: expect.arrayContaining(['lineage']),
    });
    expect(group.commands.map((c) => c.path[1])).toContain('lineage');
    expect(group.commands.every((c) => c.path[0] === 'catalog')).toBe(true);
    const text = await runInProcess(['describe', 'job', 'wait']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^dlake job wait <id>\n {2}Wait until a job ends/);
    expect(text.stdout).toContain('    $ dlake job wait ID --timeout 15m -o json');
    expect(text.stdout).not.toContain('Exit codes:');
    expect((await runInProcess(['describe'])).stdout).toContain('Exit codes:\n      0  success');
  });

  it('an unknown command is exit 2 with one error line and a suggestion, nothing on stdout', async () => {
    const r = await runInProcess(['describe', 'job', 'wiat', '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "error: unknown command 'dlake job wiat'\nhint: did you mean `dlake describe job wait`?\n",
    );
    const top = await runInProcess(['describe', 'nonexist']);
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/^error: unknown command 'dlake nonexist'\nhint: dlake has: login, /);
  });
});
