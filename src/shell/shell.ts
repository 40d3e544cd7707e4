// `dlake sql` on a terminal with no query: the interactive SQL shell. Lines gather into a statement until a
// `;` ends it (quotes and comments respected, as in scripts); backslash commands act at once. Ctrl-C cancels
// the running statement on the service and keeps the shell; at the prompt it drops the unfinished input.
// Ctrl-D or \q leaves. The backslash commands are psql's (src/shell/meta.ts lists them).
import { createInterface, type Interface } from 'node:readline';
import type { ApiClient } from '../api/http.js';
import { configDir } from '../config/dir.js';
import type { Context } from '../context.js';
import { DlakeError, InterruptedError, UsageError } from '../errors.js';
import { printRows, resultView, TABLE_ROWS } from '../export/print-rows.js';
import { widestLine } from '../output/pager.js';
import { render } from '../output/render.js';
import { terminalWidth } from '../output/width.js';
import { oneLine, splitSql } from '../sql/split.js';
import { countRows, formatDuration } from '../util/units.js';
import { CatalogCache } from './catalog-cache.js';
import { Completer, columnCandidates } from './complete.js';
import { describeRelation, isPattern, showRelations } from './describe.js';
import { editText } from './editor.js';
import { HISTORY_SIZE, History } from './history.js';
import { KeyRouter } from './keys.js';
import {
  COMMANDS,
  type Expanded,
  expandedMessage,
  helpLines,
  parseExpanded,
  parseFileArg,
  parseMeta,
  parseSet,
  parseSwitch,
  parseWatchInterval,
} from './meta.js';
import { pageOrPrint } from './pager.js';
import { include, watch } from './repeat.js';
import { verticalView } from './vertical.js';

interface ShellOptions {
  /** Catalog path that unqualified names resolve in (--context). */
  context?: string[];
  /** `dlake sql --read-only`: the shell starts with `\set readonly on`. */
  readOnly?: boolean;
}

/** The read-only rule as the shell words it (src/sql/read-only.ts). */
const SHELL_RULE = { when: 'while readonly is on', hint: '\\set readonly off lets statements change data' };

const PROMPT = 'dlake> ';
/** Statements after which the session's view of the catalog (for Tab, \dt, \d) is read again. */
const CHANGES_CATALOG = /^\s*(?:CREATE|DROP|ALTER|TRUNCATE)\b/i;
const MORE = '   ..> ';

export async function runShell(ctx: Context, opts: ShellOptions): Promise<void> {
  const shell = new Shell(ctx, opts);
  await shell.run();
}

class Shell {
  private readonly keys: KeyRouter;
  private readonly history: History;
  private rl!: Interface;
  private buffer = '';
  private timing = false;
  /** With \timing: how long the statement that just failed ran, said after its error. */
  private failedAfterMs?: number;
  private expanded: Expanded = 'off';
  /** The last statement run: what `\watch` and `\e` take when nothing is being typed. */
  private lastQuery?: string;
  private readonly catalog: CatalogCache;
  private exportTo?: string;
  /** How the \o export reads its rows (`\o FILE --transport flight`): docs/cli-contract.md "Export over Arrow Flight". */
  private exportTransport: 'auto' | 'flight' | 'rest' = 'auto';
  /** `\o FILE --no-clobber`: a FILE that exists is kept (docs/cli-contract.md "Jobs, results and export"). */
  private exportNoClobber = false;
  private clientPromise?: Promise<ApiClient>;
  /** `\set readonly on`: only statements that read run (docs/agents.md "Read-only"). */
  private readOnly: boolean;

  constructor(
    private readonly ctx: Context,
    private readonly opts: ShellOptions,
  ) {
    this.keys = new KeyRouter(ctx.streams.stdin);
    this.history = new History(configDir(ctx.env), (m) => ctx.ui.warn(m));
    this.catalog = new CatalogCache(() => this.client());
    this.readOnly = opts.readOnly === true;
  }

  private client(): Promise<ApiClient> {
    this.clientPromise ??= this.ctx.client();
    return this.clientPromise;
  }

  async run(): Promise<void> {
    const { ctx } = this;
    // Settings and credentials are checked before the first prompt, not at the first statement.
    await this.client();
    const completer = new Completer(
      async (path) => (await this.catalog.children(path)).map((e) => e.path.at(-1) ?? '').filter(Boolean),
      Object.keys(COMMANDS),
      (path, word) => columnCandidates(this.catalog, path, this.statementAround(word), this.opts.context),
    );
    this.rl = createInterface({
      input: this.keys.input as unknown as NodeJS.ReadableStream,
      output: ctx.streams.stderr,
      terminal: true,
      prompt: PROMPT,
      history: this.history.load(),
      // readline adds nothing itself: the shell records whole statements, and never one with a secret.
      historySize: 0,
      tabSize: 4,
      completer: (line: string, callback: (err: Error | null, result: [string[], string]) => void) => {
        completer.complete(line).then(
          (r) => callback(null, r),
          () => callback(null, [[], line]),
        );
      },
    });
    this.keys.attach(this.rl);
    // Ctrl-C at the prompt drops what was typed (readline would otherwise send the process SIGINT).
    this.rl.on('SIGINT', () => this.dropInput());
    ctx.ui.notice('dlake SQL shell: end a statement with ;  \\? for help, \\q or Ctrl-D to leave');
    try {
      this.rl.prompt();
      for await (const line of this.rl) {
        if (!(await this.onLine(line))) break;
        this.rl.setPrompt(this.buffer ? MORE : PROMPT);
        this.keys.editing();
        // The cursor stays where it is: keys that came after this line (typed ahead, or the rest of a paste)
        // are already in the new line, and what comes next goes after them, not before.
        this.rl.prompt(true);
      }
    } finally {
      this.rl.close();
      this.keys.release();
      ctx.streams.stderr.write('\n');
    }
  }

  /** One line typed: false when the shell should end. */
  private async onLine(line: string): Promise<boolean> {
    // A backslash line is a command, unless it continues a string or comment left open (psql's rule too).
    if (line.trim().startsWith('\\') && (!this.buffer || splitSql(this.buffer).inside === 'nothing')) {
      this.remember(line.trim());
      return this.backslash(line.trim());
    }
    await this.addSql(line);
    return true;
  }

  /** SQL typed (or saved by the editor): each statement it completes runs; the rest waits for more. */
  private async addSql(line: string): Promise<void> {
    // A statement under way (code, or an open quote or comment) that the line brings no `;` to stays under way:
    // it is not read again, so that pasting a long statement line by line costs its length, not its square.
    if (this.buffer && !line.includes(';')) {
      this.buffer = `${this.buffer}\n${line}`;
      return;
    }
    this.buffer = this.buffer ? `${this.buffer}\n${line}` : line;
    const split = splitSql(this.buffer);
    if (split.statements.length === 0) {
      if (!split.rest && split.inside === 'nothing') this.buffer = '';
      return;
    }
    // What follows the last `;` starts the next statement, unless it is only blanks and comments.
    this.buffer = split.rest || split.inside !== 'nothing' ? split.tail.replace(/^\s+/, '') : '';
    for (const statement of split.statements) {
      this.remember(`${oneLine(statement.text)};`);
      await this.guard(() => this.runStatement(statement.text));
    }
  }

  private remember(entry: string): void {
    if (!this.history.add(entry)) return;
    const list = (this.rl as unknown as { history: string[] }).history;
    if (list[0] !== entry) list.unshift(entry);
    if (list.length > HISTORY_SIZE) list.length = HISTORY_SIZE;
  }

  private dropInput(): void {
    this.keys.dropLine();
    this.buffer = '';
    this.ctx.streams.stderr.write('^C\n');
    this.rl.setPrompt(PROMPT);
    this.rl.prompt();
  }

  /** Runs one action, printing its failure the way a command's is printed, and keeps the shell. */
  private async guard(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (err) {
      const { stderr } = this.ctx.streams;
      const t = this.ctx.theme;
      // A stop signal ends the shell, with its exit code (src/runtime.ts says which).
      if (err instanceof InterruptedError && this.ctx.interrupt.signal.aborted) throw err;
      if (err instanceof InterruptedError) {
        this.ctx.ui.error(err.message, { label: t.warn('cancelled:'), hint: this.ctx.hint(err) });
      } else if (err instanceof DlakeError) {
        this.ctx.sayFailure(err);
      } else {
        this.ctx.ui.error(`unexpected failure: ${(err as Error)?.message ?? String(err)}`);
        if (this.ctx.debugging) stderr.write(`${(err as Error)?.stack ?? ''}\n`);
      }
      this.sayTime(this.failedAfterMs);
    } finally {
      this.failedAfterMs = undefined;
    }
  }

  private async execute(text: string): Promise<void> {
    const { ctx } = this;
    // Typed, from \i, \watch or \e: every statement passes the rule before it is sent.
    if (this.readOnly) (await import('../sql/read-only.js')).requireReading(text, SHELL_RULE);
    const started = performance.now();
    ctx.startedAt = started;
    const controller = new AbortController();
    this.keys.running(() => controller.abort());
    // Ctrl-C (the key) cancels the statement and keeps the shell; a stop signal (SIGHUP: the terminal is gone,
    // SIGTERM) ends it too, whatever the statement waits for (a reader of the `\o` named pipe included).
    const signal = AbortSignal.any([controller.signal, ctx.interrupt.signal]);
    try {
      // The same way as `dlake sql` (export/statement.ts): an export to the \o file may go over Arrow Flight.
      const out = this.exportTo;
      const { runStatement } = await import('../export/statement.js');
      const { exportSpec } = await import('../export/formats.js');
      const ran = await runStatement(ctx, {
        sql: text,
        context: this.opts.context,
        out:
          out === undefined
            ? undefined
            : { file: out, spec: exportSpec(out, undefined, this.exportNoClobber) },
        transport: out === undefined ? 'rest' : this.exportTransport,
        // Ctrl-C here cancels the job on the service at once: the person at the shell asked for it.
        yes: true,
        signal,
      });
      // \o holds for the next result only; after a failure it still holds, for the statement run again.
      this.exportTo = undefined;
      if (!ran.delivered) await this.output(ran.client, ran.id, signal);
      this.keys.editing();
      this.sayTime(performance.now() - started);
    } catch (err) {
      this.keys.editing();
      // The time of a statement that failed follows its error (psql's order): the shell says it after the error.
      if (this.timing) this.failedAfterMs = performance.now() - started;
      if (signal.aborted && !(err instanceof InterruptedError)) {
        throw new InterruptedError('the statement was interrupted');
      }
      throw err;
    }
  }

  /** `\timing`: how long the statement took, under its result or its error. */
  private sayTime(ms: number | undefined): void {
    if (!this.timing || ms === undefined) return;
    this.ctx.streams.stderr.write(`Time: ${formatDuration(Math.round(ms), { largest: 2 })}\n`);
  }

  /** The result printed (through the pager when taller or wider than the terminal: pager.ts). */
  private async output(client: ApiClient, id: string, signal: AbortSignal): Promise<void> {
    const { ctx } = this;
    if (ctx.format !== 'table' && this.expanded !== 'on') {
      await printRows(ctx, { client, id, signal });
      return;
    }
    const { readRows } = await import('../export/held-rows.js');
    const held = await readRows({ client, id, maxRows: TABLE_ROWS, signal });
    let text: string;
    if (this.expanded === 'on') text = verticalView(held.schema, held.rows);
    else {
      // Fitted to the terminal as `dlake sql` fits it (free text cut, else one block a row); `\x auto` instead
      // shows records vertically when the whole table would be wider than the terminal (psql's rule).
      const width = terminalWidth(ctx.streams.stdout, ctx.env);
      const out = await render(
        { data: held.rows, rows: held.rows, view: resultView(held.schema) },
        {
          format: 'table',
          query: ctx.opts.query,
          theme: ctx.theme,
          width: this.expanded === 'auto' ? undefined : width,
        },
      );
      text = out.stdout;
      if (out.note) ctx.ui.notice(out.note);
      if (this.expanded === 'auto' && width && widestLine(text) > width) {
        text = verticalView(held.schema, held.rows);
      }
    }
    if (text) await pageOrPrint(ctx, text, this.keys);
    if (held.rows.length < held.rowCount) {
      ctx.ui.notice(
        `showing the first ${countRows(held.rows.length)} of ${held.rowCount.toLocaleString('en-US')}; \\o FILE exports them all`,
      );
    }
  }

  /** A backslash command: false for \q. A bad one is one `error:` line, and the shell goes on. */
  private async backslash(line: string): Promise<boolean> {
    const { name, arg } = parseMeta(line);
    const { ctx } = this;
    const say = (text: string) => ctx.streams.stderr.write(`${text}\n`);
    switch (name) {
      case '\\q':
        return false;
      case '\\?':
        say(helpLines(terminalWidth(ctx.streams.stderr, ctx.env)).join('\n'));
        break;
      case '\\timing':
        await this.guard(async () => {
          this.timing = parseSwitch('\\timing', arg, this.timing);
          say(`Timing is ${this.timing ? 'on' : 'off'}.`);
        });
        break;
      case '\\x':
        await this.guard(async () => {
          this.expanded = parseExpanded(arg, this.expanded);
          say(expandedMessage(this.expanded));
        });
        break;
      case '\\o':
        await this.guard(async () => {
          if (!arg) {
            this.exportTo = undefined;
            ctx.streams.stderr.write('The next result is printed.\n');
            return;
          }
          // `\o FILE [--no-clobber] --transport auto|flight|rest`
          const noClobber = /(^|\s)--no-clobber(?=\s|$)/;
          const m = /^(.*?)(?:\s+--transport(?:=|\s+)(\S+))?$/.exec(arg.replace(noClobber, ' ').trim())!;
          const file = m[1]!.trim();
          const transport = m[2] ?? 'auto';
          if (transport !== 'auto' && transport !== 'flight' && transport !== 'rest')
            throw new UsageError(`--transport is auto, flight or rest, not "${transport}"`);
          // The target is checked now, as `--out` is before anything is sent: its format and compression
          // (x.parquet.gz is refused), and a folder that exists and can be written in.
          const [{ exportSpec }, { checkWritable }] = await Promise.all([
            import('../export/formats.js'),
            import('../export/target.js'),
          ]);
          exportSpec(file);
          await checkWritable(file, { noClobber: noClobber.test(arg) });
          this.exportTo = file;
          this.exportNoClobber = noClobber.test(arg);
          this.exportTransport = transport;
          ctx.streams.stderr.write(
            `The next result goes to ${file}${transport === 'auto' ? '' : ` (over ${transport === 'flight' ? 'Arrow Flight' : 'REST'})`}.\n`,
          );
        });
        return true;
      case '\\set':
        await this.guard(async () => {
          this.readOnly = parseSet(arg, this.readOnly);
          say(`Read-only is ${this.readOnly ? 'on: only statements that read run' : 'off'}.`);
        });
        break;
      case '\\d':
        await this.guard(() =>
          !arg || isPattern(arg)
            ? showRelations(this.describing(), arg)
            : describeRelation(this.describing(), arg),
        );
        break;
      case '\\dt':
      case '\\dv':
        await this.guard(() => showRelations(this.describing(), arg, name === '\\dt' ? 'table' : 'view'));
        break;
      case '\\i':
        await this.guard(() => include(this.runner(), parseFileArg('\\i', arg)));
        break;
      case '\\watch':
        await this.guard(() => this.watch(arg));
        break;
      case '\\e':
        await this.guard(() => this.edit(arg));
        break;
      default:
        await this.guard(async () => {
          throw new UsageError(`invalid command ${name}`, { hint: '\\? lists the commands' });
        });
    }
    return true;
  }

  /** How \i and \watch run statements: as typed ones are. */
  private runner() {
    return {
      ctx: this.ctx,
      keys: this.keys,
      execute: (text: string) => this.runStatement(text),
    };
  }

  /** One statement, which becomes the last query; one that changes the catalog makes the session read it again. */
  private async runStatement(text: string): Promise<void> {
    this.lastQuery = text;
    await this.execute(text);
    if (CHANGES_CATALOG.test(text)) this.catalog.forget();
  }

  /**
   * The statement being typed, all of it (the tables it reads may come after the cursor), without the word Tab
   * is completing: a table name half typed is not read as a table.
   */
  private statementAround(word: string): string {
    const { line, cursor } = this.rl as unknown as { line: string; cursor: number };
    const before = line.slice(0, cursor);
    return `${this.buffer}\n${before.slice(0, before.length - word.length)} ${line.slice(cursor)}`;
  }

  private describing() {
    const { ctx, keys, catalog, opts } = this;
    return { ctx, keys, catalog, client: () => this.client(), context: opts.context };
  }

  /** The query being typed, else the last one run. */
  private currentQuery(): string | undefined {
    return this.buffer.trim().replace(/;\s*$/, '') || this.lastQuery;
  }

  /** `\watch [SECONDS]`: the query being typed, or else the last one, again and again until Ctrl-C. */
  private async watch(arg: string): Promise<void> {
    const seconds = parseWatchInterval(arg);
    const text = this.currentQuery();
    if (!text)
      throw new UsageError('\\watch cannot be used with an empty query', { hint: 'run a query first' });
    this.buffer = '';
    await watch(this.runner(), text, seconds);
  }

  /**
   * `\e`: the query being typed, or else the last one, in the editor. Saved, the text is taken as if typed:
   * the statements it completes run, the rest waits at the prompt. Left as it was, nothing runs and the query
   * being typed is dropped (psql).
   */
  private async edit(arg: string): Promise<void> {
    if (arg) throw new UsageError('\\e takes no file here: it edits the query being typed, or the last one');
    // The query stays where it was until the editor has saved its new text. The last query comes with its
    // `;`, so that saving it runs it; a query being typed comes as typed.
    const typed = this.buffer.trim();
    const text = typed || (this.lastQuery ? `${this.lastQuery};` : '');
    const edited = await editText(this.ctx, this.keys, text);
    this.buffer = '';
    if (edited === undefined) return;
    await this.addSql(edited.replace(/\s+$/, ''));
    if (this.buffer) this.ctx.streams.stderr.write(`${this.buffer}\n`);
  }
}
