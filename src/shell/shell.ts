// `dlake sql` on a terminal with no query: the interactive SQL shell. Lines gather into a statement until a
// `;` ends it (quotes and comments respected, as in scripts); backslash commands act at once. Ctrl-C cancels
// the running statement on the service and keeps the shell; at the prompt it drops the unfinished input.
// Ctrl-D or \q leaves.
import { createInterface, type Interface } from 'node:readline';
import type { ApiClient } from '../api/http.js';
import { configDir } from '../config/dir.js';
import type { Context } from '../context.js';
import { DlakeError, InterruptedError, UsageError } from '../errors.js';
import { printRows, resultView, TABLE_ROWS } from '../export/print-rows.js';
import { render } from '../output/render.js';
import { oneLine, splitSql } from '../sql/split.js';
import { type CatalogRef, isUuid, parseRef } from '../util/catalog-ref.js';
import { countRows, formatDuration } from '../util/units.js';
import { Completer, dottedComponents } from './complete.js';
import { HISTORY_SIZE, History } from './history.js';
import { KeyRouter } from './keys.js';
import { pageOrPrint } from './pager.js';
import { verticalView } from './vertical.js';

interface ShellOptions {
  /** Catalog path that unqualified names resolve in (--context). */
  context?: string[];
}

const PROMPT = 'dlake> ';
const MORE = '   ..> ';

const COMMANDS: Record<string, string> = {
  '\\d':
    '\\d REF       describe a dataset: its fields and types (Samples/sales/2024.csv or Samples.sales."2024.csv")',
  '\\o':
    '\\o FILE      export the next result to FILE (csv, json or ndjson, from the name; --transport flight|rest|auto); \\o alone: no export',
  '\\timing': '\\timing     show how long each statement takes (on/off)',
  '\\x': '\\x          show records vertically, one field a line (on/off)',
  '\\q': '\\q          leave (Ctrl-D too)',
  '\\?': '\\?          this help',
};

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
  private expanded = false;
  private exportTo?: string;
  /** How the \o export reads its rows (`\o FILE --transport flight`): docs/cli-contract.md "Export over Arrow Flight". */
  private exportTransport: 'auto' | 'flight' | 'rest' = 'auto';
  private clientPromise?: Promise<ApiClient>;

  constructor(
    private readonly ctx: Context,
    private readonly opts: ShellOptions,
  ) {
    this.keys = new KeyRouter(ctx.streams.stdin);
    this.history = new History(configDir(ctx.env), (m) => ctx.ui.warn(m));
  }

  private client(): Promise<ApiClient> {
    this.clientPromise ??= this.ctx.client();
    return this.clientPromise;
  }

  async run(): Promise<void> {
    const { ctx } = this;
    // Settings and credentials are checked before the first prompt, not at the first statement.
    await this.client();
    const completer = new Completer((path) => this.listNames(path), Object.keys(COMMANDS));
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
        this.rl.prompt();
      }
    } finally {
      this.rl.close();
      this.keys.release();
      ctx.streams.stderr.write('\n');
    }
  }

  /** One line typed: false when the shell should end. */
  private async onLine(line: string): Promise<boolean> {
    if (!this.buffer && line.trim().startsWith('\\')) {
      this.remember(line.trim());
      return this.backslash(line.trim());
    }
    this.buffer = this.buffer ? `${this.buffer}\n${line}` : line;
    const split = splitSql(this.buffer);
    if (split.statements.length === 0) {
      if (!split.rest && split.inside === 'nothing') this.buffer = '';
      return true;
    }
    // What follows the last `;` starts the next statement, unless it is only blanks and comments.
    this.buffer = split.rest || split.inside !== 'nothing' ? split.tail.replace(/^\s+/, '') : '';
    for (const statement of split.statements) {
      this.remember(`${oneLine(statement.text)};`);
      await this.guard(() => this.execute(statement.text));
    }
    return true;
  }

  private remember(entry: string): void {
    if (!this.history.add(entry)) return;
    const list = (this.rl as unknown as { history: string[] }).history;
    if (list[0] !== entry) list.unshift(entry);
    if (list.length > HISTORY_SIZE) list.length = HISTORY_SIZE;
  }

  private dropInput(): void {
    const rl = this.rl as unknown as { line: string; cursor: number };
    rl.line = '';
    rl.cursor = 0;
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
      if (err instanceof InterruptedError) {
        this.ctx.ui.error(err.message, { label: t.warn('cancelled:'), hint: err.hint });
      } else if (err instanceof DlakeError) {
        this.ctx.ui.error(err.message, err);
      } else {
        this.ctx.ui.error(`unexpected failure: ${(err as Error)?.message ?? String(err)}`);
        if (this.ctx.debugging) stderr.write(`${(err as Error)?.stack ?? ''}\n`);
      }
    }
  }

  private async execute(text: string): Promise<void> {
    const { ctx } = this;
    const started = performance.now();
    const controller = new AbortController();
    this.keys.running(() => controller.abort());
    try {
      // The same way as `dlake sql` (export/statement.ts): an export to the \o file may go over Arrow Flight.
      const out = this.exportTo;
      const { runStatement } = await import('../export/statement.js');
      const { exportSpec } = await import('../export/writers.js');
      const ran = await runStatement(ctx, {
        sql: text,
        context: this.opts.context,
        out: out === undefined ? undefined : { file: out, spec: exportSpec(out) },
        transport: out === undefined ? 'rest' : this.exportTransport,
        // Ctrl-C here cancels the job on the service at once: the person at the shell asked for it.
        yes: true,
        signal: controller.signal,
      });
      // \o holds for the next result only; after a failure it still holds, for the statement run again.
      this.exportTo = undefined;
      if (!ran.delivered) await this.output(ran.client, ran.id, controller.signal);
    } catch (err) {
      if (controller.signal.aborted && !(err instanceof InterruptedError)) {
        throw new InterruptedError('the statement was interrupted');
      }
      throw err;
    } finally {
      this.keys.editing();
      if (this.timing) {
        ctx.streams.stderr.write(
          `Time: ${formatDuration(Math.round(performance.now() - started), { largest: 2 })}\n`,
        );
      }
    }
  }

  /** The result printed (a table through the pager when wider than the terminal). */
  private async output(client: ApiClient, id: string, signal: AbortSignal): Promise<void> {
    const { ctx } = this;
    if (ctx.format !== 'table' && !this.expanded) {
      await printRows(ctx, { client, id, signal });
      return;
    }
    const { readRows } = await import('../export/held-rows.js');
    const held = await readRows({ client, id, maxRows: TABLE_ROWS, signal });
    let text: string;
    if (this.expanded) text = verticalView(held.schema, held.rows);
    else {
      const out = await render(
        { data: held.rows, rows: held.rows, view: resultView(held.schema) },
        { format: 'table', query: ctx.opts.query, theme: ctx.theme },
      );
      text = out.stdout;
      if (out.note) ctx.ui.notice(out.note);
    }
    if (text) await pageOrPrint(ctx, text, this.keys);
    if (held.rows.length < held.rowCount) {
      ctx.ui.notice(
        `showing the first ${countRows(held.rows.length)} of ${held.rowCount.toLocaleString('en-US')}; \\o FILE exports them all`,
      );
    }
  }

  /** A backslash command: false for \q. */
  private async backslash(line: string): Promise<boolean> {
    const [command = '', ...args] = line.split(/\s+/);
    const arg = line.slice(command.length).trim();
    const { ctx } = this;
    switch (command) {
      case '\\q':
        return false;
      case '\\?':
        ctx.streams.stderr.write(`${Object.values(COMMANDS).join('\n')}\n`);
        return true;
      case '\\timing':
        this.timing = toggle(args[0], this.timing);
        ctx.streams.stderr.write(`Timing is ${this.timing ? 'on' : 'off'}.\n`);
        return true;
      case '\\x':
        this.expanded = toggle(args[0], this.expanded);
        ctx.streams.stderr.write(`Expanded display is ${this.expanded ? 'on' : 'off'}.\n`);
        return true;
      case '\\o':
        await this.guard(async () => {
          if (!arg) {
            this.exportTo = undefined;
            ctx.streams.stderr.write('The next result is printed.\n');
            return;
          }
          // `\o FILE --transport auto|flight|rest`
          const m = /^(.*?)(?:\s+--transport(?:=|\s+)(\S+))?$/.exec(arg)!;
          const file = m[1]!.trim();
          const transport = m[2] ?? 'auto';
          if (transport !== 'auto' && transport !== 'flight' && transport !== 'rest')
            throw new UsageError(`--transport is auto, flight or rest, not "${transport}"`);
          const { checkWritable } = await import('../export/target.js');
          await checkWritable(file);
          this.exportTo = file;
          this.exportTransport = transport;
          ctx.streams.stderr.write(
            `The next result goes to ${file}${transport === 'auto' ? '' : ` (over ${transport === 'flight' ? 'Arrow Flight' : 'REST'})`}.\n`,
          );
        });
        return true;
      case '\\d':
        await this.guard(() => this.describe(arg));
        return true;
      default:
        await this.guard(async () => {
          throw new UsageError(`unknown command ${command}`, { hint: '\\? lists the commands' });
        });
        return true;
    }
  }

  /** `\d REF`: the fields of a dataset and their types. */
  private async describe(ref: string): Promise<void> {
    if (!ref)
      throw new UsageError(
        '\\d needs a dataset, e.g. \\d Samples.sales."2024.csv" or \\d Samples/sales/2024.csv',
      );
    const { resolveRef } = await import('../api/catalog.js');
    const entity = await resolveRef(await this.client(), describedRef(ref));
    if (!entity.fields) {
      throw new UsageError(`${ref} is a ${entity.entityType}: it has no fields`, {
        hint: 'describe a dataset (a table or a view)',
      });
    }
    const out = await render(
      {
        data: entity.fields,
        rows: entity.fields,
        view: {
          columns: [
            { header: 'FIELD', value: (f: { name: string }) => f.name },
            { header: 'TYPE', value: (f: { type: { name: string } }) => f.type.name },
          ],
          empty: 'No fields.',
        },
      },
      { format: 'table', theme: this.ctx.theme },
    );
    if (out.stdout) await pageOrPrint(this.ctx, out.stdout, this.keys);
    if (out.note) this.ctx.ui.notice(out.note);
  }

  /** The names of a container's children, for Tab. */
  private async listNames(path: readonly string[]): Promise<string[]> {
    const client = await this.client();
    const { listTopLevel, listChildren } = await import('../api/catalog.js');
    const entries = path.length
      ? (await listChildren(client, { kind: 'path', path: [...path] })).children
      : await listTopLevel(client);
    return entries.map((e) => e.path.at(-1) ?? '').filter(Boolean);
  }
}

/**
 * What `\d` describes: a `<ref>` as `catalog get` takes it (a path with `/`, or an id), or a name written
 * the SQL way, as it is typed in statements and completed by Tab (`Samples.sales."2024.csv"`).
 */
export function describedRef(text: string): CatalogRef {
  if (text.includes('/') || isUuid(text)) return parseRef(text);
  const { parents, last } = dottedComponents(text);
  return { kind: 'path', path: [...parents, last] };
}

/** `\x`, `\x on`, `\x off`. */
function toggle(arg: string | undefined, current: boolean): boolean {
  if (arg === 'on') return true;
  if (arg === 'off') return false;
  return !current;
}
