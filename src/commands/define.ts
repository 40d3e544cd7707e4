// How a command is declared (docs/architecture.md, "Commands"): once, as a commander chain — name,
// arguments, options, help — typed by @commander-js/extra-typings, and a handler whose arguments and options
// take their types from that chain. A hand-written options interface could drift from the options declared;
// these cannot.
import type { Command } from '@commander-js/extra-typings';
import type { Context, World } from '../context.js';

/**
 * What commands see of the runtime (src/runtime.ts, which implements it): it turns a handler into commander's
 * action, creating the Context from the global options in force. Declared here, on the commands' side, so that
 * the runtime imports the commands and not the reverse.
 */
export interface CommandRuntime {
  /** The caller's environment and streams (`dlake version` prints without a Context). */
  readonly world: World;
  /** Wraps a command handler: `(ctx, ...commanderArgs)`, where the last of those is the options object. */
  action<A extends unknown[]>(
    fn: (ctx: Context, ...args: A) => Promise<void>,
  ): (...args: unknown[]) => Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: any command, whatever its arguments and options
type AnyCommand = Command<any[], any, any>;

/** What commander hands the action of command C: its arguments, in order, then its options. */
type ActionArgs<C> = C extends Command<infer A, infer O, infer _G> ? [...A, O] : never;

/** The options object of the command a declaration returns. */
export type OptionsOf<D extends (parent: Command) => AnyCommand> =
  ReturnType<D> extends Command<infer _A, infer O, infer _G> ? O : never;

/** Fills in a top-level command or a group, created by the registry with its name and summary. */
export type Declare = (cmd: Command, rt: CommandRuntime) => void;

/**
 * A command from its declaration and its handler. `declare` receives the group the command belongs to (and
 * calls `.command(name)`), or, for a top-level command, the command itself; `run` gets the Context, then
 * the arguments and options commander parsed, typed from the declaration.
 */
export function defineCommand<C extends AnyCommand>(
  declare: (parent: Command) => C,
  run: (ctx: Context, ...args: ActionArgs<C>) => Promise<void>,
): Declare {
  return (parent, rt) => {
    declare(parent).action(rt.action(run));
  };
}

/** A group: its verbs, in the order help lists them, and text for the end of its help. */
export function defineGroup(verbs: Declare[], helpAfter?: string): Declare {
  return (group, rt) => {
    if (helpAfter) group.addHelpText('after', helpAfter);
    for (const verb of verbs) verb(group, rt);
  };
}
