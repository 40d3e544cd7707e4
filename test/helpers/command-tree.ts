// The command tree walked in-process: every command that runs something, with its required arguments and
// its mandatory options (a placeholder value each). The usage-error tests and the invariant properties
// (test/e2e/invariants.test.ts) cover each command through it, so commands added later are covered too.
import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { registerGroups } from '../../src/commands/registry.js';
import { buildRoot, Runtime } from '../../src/runtime.js';

export interface Leaf {
  /** The command's words after `dlake`, e.g. ['profile', 'use']. */
  words: string[];
  requiredArgs: string[];
  /** Its mandatory options with a value each: without them, commander reports those first. */
  mandatory: string[];
}

/** A value the option accepts: its first choice, else the first candidate its parser takes. */
export function placeholderFor(option: Option): string[] {
  const flag = option.long ?? option.short!;
  if (!option.required && !option.optional) return [flag];
  if (option.argChoices?.length) return [flag, option.argChoices[0]!];
  const candidates = ['x', '1', '1s', '1MiB', 'a=b', 'http://x.example', '{}'];
  const accepted = candidates.find((c) => {
    try {
      option.parseArg?.(c, option.defaultValue);
      return true;
    } catch {
      return false;
    }
  });
  return [flag, accepted ?? 'x'];
}

/** Commands that run something: those with an action handler (groups without one only print help). */
export async function leafCommands(): Promise<Leaf[]> {
  const rt = new Runtime({ env: {}, streams: process });
  const program = buildRoot(rt);
  await registerGroups(program, rt, 'all');
  const leaves: Leaf[] = [];
  const visit = (cmd: Command, words: string[]): void => {
    // commander keeps the handler private; its presence is what makes a command runnable.
    if ((cmd as unknown as { _actionHandler: unknown })._actionHandler) {
      const requiredArgs = cmd.registeredArguments.filter((a) => a.required).map((a) => a.name());
      const mandatory = cmd.options.filter((o) => o.mandatory).flatMap(placeholderFor);
      leaves.push({ words, requiredArgs, mandatory });
    }
    for (const sub of cmd.commands) visit(sub, [...words, sub.name()]);
  };
  visit(program, []);
  return leaves;
}
