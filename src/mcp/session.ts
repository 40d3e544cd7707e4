// The profiles an MCP session may use (docs/agents.md "Profiles"): those named by `dlake mcp --profile`, or the
// default profile alone; one Context each, made on first use and kept for the session (one connection pool,
// one renewed token). Their standard output goes nowhere: on stdio it carries the protocol's messages only.
import { Writable } from 'node:stream';
import { Context, type World } from '../context.js';
import { UsageError } from '../errors.js';
import type { GlobalOptions } from '../global-options.js';

/** Standard output for the tools' Contexts: whatever a command would print there is dropped. */
function nowhere(): NodeJS.WriteStream {
  return new Writable({ write: (_chunk, _enc, done) => done() }) as unknown as NodeJS.WriteStream;
}

export class Profiles {
  /** The profile a call without `profile` uses. */
  readonly defaultName: string;
  readonly allowed: readonly string[];
  private readonly contexts = new Map<string, Promise<Context>>();
  /** Without `--profile`, the default profile's options are the command's own (DLAKE_URL applies). */
  private readonly ownOptions: boolean;
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
    this.ownOptions = named.length === 0;
    if (named.length === 0) {
      // The default profile as the command resolved it: DLAKE_URL and DLAKE_TOKEN apply as they do to any command.
      this.allowed = [current];
      this.defaultName = current;
    } else {
      this.allowed = [...new Set(named)];
      this.defaultName =
        start.opts.profile && named.includes(start.opts.profile) ? start.opts.profile : named[0]!;
    }
  }

  /** The Context of `name` (default: the default profile); a profile not allowed is a usage error. */
  context(name?: string): Promise<Context> {
    const profile = name ?? this.defaultName;
    if (!this.allowed.includes(profile)) {
      return Promise.reject(
        new UsageError(`profile "${profile}" is not allowed in this session`, {
          hint: `allowed: ${this.allowed.join(', ')} (dlake mcp --profile NAME allows more)`,
        }),
      );
    }
    let ctx = this.contexts.get(profile);
    if (!ctx) {
      const opts: GlobalOptions = this.ownOptions ? this.start.opts : { ...this.start.opts, profile };
      ctx = Context.create(opts, this.world);
      this.contexts.set(profile, ctx);
    }
    return ctx;
  }

  /** The session is ending: what a command function waits on through its Context's interrupt stops too. */
  async interrupt(): Promise<void> {
    for (const ctx of await this.all()) ctx.interrupt.abort();
  }

  async dispose(): Promise<void> {
    await Promise.allSettled((await this.all()).map((c) => c.dispose()));
  }

  private async all(): Promise<Context[]> {
    const made = await Promise.allSettled(this.contexts.values());
    return made.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  }
}
