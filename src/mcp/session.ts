// The profiles an MCP session may use (docs/agents.md "Profiles"): those named by `dlake mcp --profile`, or the
// default profile alone; one Context each, made on first use and kept for the session (one connection pool,
// one renewed token). Their standard output goes nowhere: on stdio it carries the protocol's messages only.
import { Writable } from 'node:stream';
import { Context, type GlobalOptions, type World } from '../context.js';
import { UsageError } from '../errors.js';

/** Standard output for the tools' Contexts: whatever a command would print there is dropped. */
function nowhere(): NodeJS.WriteStream {
  return new Writable({ write: (_chunk, _enc, done) => done() }) as unknown as NodeJS.WriteStream;
}

export class Profiles {
  /** The profile a call without `profile` uses. */
  readonly defaultName: string;
  readonly allowed: readonly string[];
  private readonly contexts = new Map<string, Context>();
  private readonly world: World;

  /**
   * `named`: the profiles `--profile` named after `mcp`; `start`: the command's own Context (its global
   * options, and the profile a `-p` before `mcp` chose).
   */
  constructor(
    private readonly start: Context,
    named: readonly string[],
  ) {
    this.world = {
      env: start.env,
      streams: { stdin: start.streams.stdin, stdout: nowhere(), stderr: start.streams.stderr },
    };
    const known = Object.keys(start.snapshot().config.profiles);
    for (const name of named) {
      if (!known.includes(name)) {
        throw new UsageError(`unknown profile "${name}"`, {
          hint: known.length ? `known profiles: ${known.join(', ')}` : 'create one with `dlake login`',
        });
      }
    }
    const current = start.settings().profileName.value;
    if (named.length === 0) {
      this.allowed = [current];
      this.defaultName = current;
      // The default profile as the command resolved it: DLAKE_URL and DLAKE_TOKEN apply as they do to any command.
      this.contexts.set(current, new Context(start.opts, this.world));
    } else {
      this.allowed = [...new Set(named)];
      this.defaultName =
        start.opts.profile && named.includes(start.opts.profile) ? start.opts.profile : named[0]!;
    }
  }

  /** The Context of `name` (default: the default profile); a profile not allowed is a usage error. */
  context(name?: string): Context {
    const profile = name ?? this.defaultName;
    if (!this.allowed.includes(profile)) {
      throw new UsageError(`profile "${profile}" is not allowed in this session`, {
        hint: `allowed: ${this.allowed.join(', ')} (dlake mcp --profile NAME allows more)`,
      });
    }
    let ctx = this.contexts.get(profile);
    if (!ctx) {
      const opts: GlobalOptions = { ...this.start.opts, profile };
      ctx = new Context(opts, this.world);
      this.contexts.set(profile, ctx);
    }
    return ctx;
  }

  /** The session is ending: what a command function waits on through its Context's interrupt stops too. */
  interrupt(): void {
    for (const ctx of this.contexts.values()) ctx.interrupt.abort();
  }

  async dispose(): Promise<void> {
    await Promise.allSettled([...this.contexts.values()].map((c) => c.dispose()));
  }
}
