// The shell's keyboard. Node's readline edits the line, keeps the history (Up/Down) and completes on Tab,
// but has no reverse search: keys pass through this router first. It gives readline an input of its own
// (an emitter of keypress events), handles Ctrl-R itself, and while a statement runs it holds the keys
// typed ahead (replayed at the next prompt) and turns Ctrl-C into the statement's cancellation.
//
// Text typed or pasted is handed to readline a run at a time, not a key at a time: readline, given one
// character, measures the whole line to place it (and redraws the whole line each time it wraps), so a pasted
// line of n characters cost it n² (a 200 KB paste took minutes, Ctrl-C waiting behind it). The characters of
// one read from the terminal are appended in one piece and echoed as they are; the line's geometry is
// measured once, when a key that moves or redraws comes (`settle`).
import { EventEmitter } from 'node:events';
import { cursorTo, emitKeypressEvents, type Interface } from 'node:readline';

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

/** A key that is text to insert: one printable character (or a pair of surrogates), no Ctrl or Meta. */
function isText(s: string | undefined, key: Key): s is string {
  if (s === undefined || key.ctrl || key.meta) return false;
  const code = s.codePointAt(0);
  if (code === undefined || s.length !== (code > 0xffff ? 2 : 1)) return false;
  return code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0);
}

/** What the router reads and sets of readline's line state (`prevRows` is readline's own bookkeeping). */
interface ReadlineState {
  line: string;
  cursor: number;
  isCompletionEnabled: boolean;
  prevRows: number;
  output?: NodeJS.WritableStream;
  getCursorPos(): { rows: number; cols: number };
  write(data: string): void;
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
  /** Text keys not yet handed to readline: the characters of one read from the terminal, gathered. */
  private text = '';
  private textQueued = false;
  /** Text was appended past readline's knowledge of how many rows the line takes (see settle). */
  private unsettled = false;
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
    this.flushText();
    // The shell draws its prompt next (a redraw of the line, which may already hold the rest of a paste).
    this.settle();
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
    if (mode.kind === 'edit' && isText(s, key)) {
      this.text += s;
      // The rest of this read's keys arrive in the same turn: the run is handed over once they are in.
      if (!this.textQueued) {
        this.textQueued = true;
        queueMicrotask(() => this.flushText());
      }
      return;
    }
    this.flushText();
    this.settle();
    if (mode.kind === 'search') this.searchKey(mode.search, s, key);
    else if (key.ctrl && key.name === 'r') this.startSearch();
    else this.input.emit('keypress', s, key);
  }

  /** Ctrl-C at the prompt: the line (and any text not yet handed over) dropped; the next prompt starts afresh. */
  dropLine(): void {
    this.text = '';
    this.unsettled = false;
    const rl = this.rl as unknown as ReadlineState;
    rl.line = '';
    rl.cursor = 0;
    // The cursor is already below the line (the shell printed ^C): the prompt is drawn there, nothing erased.
    rl.prevRows = 0;
  }

  /**
   * Hands the gathered text to readline. At the end of the line (where typing and pasting are) it is appended
   * and echoed as readline appends a paste it recognises itself, without measuring the line; elsewhere readline
   * inserts it (one redraw for the whole run).
   */
  private flushText(): void {
    this.textQueued = false;
    const text = this.text;
    if (!text || this.mode.kind !== 'edit') return;
    this.text = '';
    const rl = this.rl as unknown as ReadlineState;
    if (rl.cursor < rl.line.length) {
      this.settle();
      rl.write(text);
      return;
    }
    const completion = rl.isCompletionEnabled;
    rl.isCompletionEnabled = false;
    try {
      rl.write(text);
    } finally {
      rl.isCompletionEnabled = completion;
    }
    this.unsettled = true;
  }

  /**
   * Before readline moves the cursor or redraws: it finds the line's first row through the rows the cursor is
   * below it, which appended text has changed. Measured here once for all that was appended. A line ending
   * exactly at the right edge leaves the terminal's cursor at that edge until the next character; readline
   * puts it on the next row (as its own redraw does, with a blank).
   */
  private settle(): void {
    if (!this.unsettled) return;
    this.unsettled = false;
    const rl = this.rl as unknown as ReadlineState;
    const pos = rl.getCursorPos();
    if (pos.cols === 0 && pos.rows > 0 && rl.output) {
      rl.output.write(' ');
      cursorTo(rl.output, 0);
    }
    rl.prevRows = pos.rows;
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
