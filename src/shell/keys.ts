// The shell's keyboard. Node's readline edits the line, keeps the history (Up/Down) and completes on Tab,
// but has no reverse search: keys pass through this router first. It gives readline an input of its own
// (an emitter of keypress events), handles Ctrl-R itself, and while a statement runs it holds the keys
// typed ahead (replayed at the next prompt) and turns Ctrl-C into the statement's cancellation.
import { EventEmitter } from 'node:events';
import { emitKeypressEvents, type Interface } from 'node:readline';

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  sequence?: string;
}

/** What readline reads from: keypress events the router forwards, and the real terminal's raw mode. */
class KeyInput extends EventEmitter {
  readonly isTTY = true;

  constructor(private readonly tty: NodeJS.ReadStream) {
    super();
  }

  setRawMode(mode: boolean): this {
    this.tty.setRawMode(mode);
    return this;
  }

  // readline pauses and resumes its input; the router keeps the terminal flowing itself.
  pause(): this {
    return this;
  }

  resume(): this {
    return this;
  }
}

type Mode = { kind: 'edit' } | { kind: 'running'; cancel: () => void } | { kind: 'search'; search: Search };

interface Search {
  query: string;
  /** Index in the history (newest first) of the entry shown, -1 for none. */
  at: number;
  failed: boolean;
  savedLine: string;
  savedPrompt: string;
}

export class KeyRouter {
  readonly input: KeyInput;
  private rl?: Interface;
  private mode: Mode = { kind: 'edit' };
  private typedAhead: Array<[string | undefined, Key]> = [];
  private readonly onKeypress = (s: string | undefined, key: Key | undefined) =>
    this.route(s, key ?? { sequence: s });

  constructor(private readonly tty: NodeJS.ReadStream) {
    this.input = new KeyInput(tty);
  }

  attach(rl: Interface): void {
    this.rl = rl;
    emitKeypressEvents(this.tty);
    this.tty.setRawMode(true);
    this.tty.on('keypress', this.onKeypress);
    this.tty.resume();
  }

  /** Gives the terminal up (to a pager, or at the end): cooked mode, no reading. */
  release(): void {
    this.tty.off('keypress', this.onKeypress);
    this.tty.setRawMode(false);
    this.tty.pause();
  }

  /** Takes the terminal back after release(). */
  reclaim(): void {
    this.tty.setRawMode(true);
    this.tty.on('keypress', this.onKeypress);
    this.tty.resume();
  }

  /** While a statement runs: Ctrl-C calls `cancel`, other keys wait for the next prompt. */
  running(cancel: () => void): void {
    this.mode = { kind: 'running', cancel };
  }

  /** Back at the prompt: the keys typed meanwhile are replayed into the line. */
  editing(): void {
    this.mode = { kind: 'edit' };
    const keys = this.typedAhead;
    this.typedAhead = [];
    for (const [s, key] of keys) this.route(s, key);
  }

  private route(s: string | undefined, key: Key): void {
    const mode = this.mode;
    if (mode.kind === 'running') {
      if (key.ctrl && key.name === 'c') {
        this.typedAhead = [];
        mode.cancel();
      } else this.typedAhead.push([s, key]);
      return;
    }
    if (mode.kind === 'search') this.searchKey(mode.search, s, key);
    else if (key.ctrl && key.name === 'r') this.startSearch();
    else this.input.emit('keypress', s, key);
  }

  private get history(): string[] {
    return (this.rl as unknown as { history: string[] }).history;
  }

  private startSearch(): void {
    const rl = this.rl!;
    const search: Search = {
      query: '',
      at: -1,
      failed: false,
      savedLine: rl.line,
      savedPrompt: rl.getPrompt(),
    };
    this.mode = { kind: 'search', search };
    this.show(search, search.savedLine);
  }

  private searchKey(search: Search, s: string | undefined, key: Key): void {
    const printable = s !== undefined && s.length === 1 && s >= ' ' && !key.ctrl && !key.meta;
    if (key.ctrl && key.name === 'r') this.find(search, search.at + 1);
    else if ((key.ctrl && (key.name === 'g' || key.name === 'c')) || key.name === 'escape') {
      this.endSearch(search, search.savedLine);
    } else if (key.name === 'backspace') {
      search.query = search.query.slice(0, -1);
      this.find(search, 0);
    } else if (printable) {
      search.query += s;
      this.find(search, Math.max(0, search.at));
    } else {
      // Any other key takes the entry found into the line and then does what it does there (Enter runs it).
      this.endSearch(search, this.current(search));
      this.input.emit('keypress', s, key);
    }
  }

  private current(search: Search): string {
    return search.at >= 0 ? (this.history[search.at] ?? '') : search.savedLine;
  }

  /** The newest entry from `from` on that holds the query. */
  private find(search: Search, from: number): void {
    const q = search.query.toLowerCase();
    const found = q ? this.history.findIndex((e, i) => i >= from && e.toLowerCase().includes(q)) : -1;
    search.failed = q !== '' && found < 0;
    if (found >= 0) search.at = found;
    this.show(search, this.current(search));
  }

  private show(search: Search, line: string): void {
    const rl = this.rl!;
    rl.setPrompt(`(${search.failed ? 'failed ' : ''}reverse-i-search)'${search.query}': `);
    this.setLine(line);
  }

  private endSearch(search: Search, line: string): void {
    this.mode = { kind: 'edit' };
    this.rl!.setPrompt(search.savedPrompt);
    this.setLine(line);
  }

  /** Replaces readline's line, through the keys a person would press (end, delete to start, type). */
  private setLine(line: string): void {
    const rl = this.rl!;
    rl.write(null, { ctrl: true, name: 'e' });
    rl.write(null, { ctrl: true, name: 'u' });
    if (line) rl.write(line);
    else rl.prompt(true);
  }
}
