// The readable form of `dlake describe`: each command with its arguments, options and examples, then the
// global options and the exit codes; the same facts as the JSON form, laid out for a terminal.
import type { CommandInfo, Description, OptionInfo } from './model.js';

function flags(o: OptionInfo): string {
  const names = [o.short, o.long].filter(Boolean).join(', ');
  return o.takesValue ? `${names} <value>` : names;
}

function optionLine(o: OptionInfo): string {
  const extra = [
    o.choices ? `one of: ${o.choices.join(', ')}` : '',
    o.default !== null ? `default: ${JSON.stringify(o.default)}` : '',
    o.env && !o.description.includes(o.env) ? `env: ${o.env}` : '',
  ].filter(Boolean);
  return `    ${flags(o)}  ${o.description}${extra.length ? ` (${extra.join('; ')})` : ''}`;
}

function commandText(c: CommandInfo): string {
  if (c.subcommands.length > 0)
    return [
      `dlake ${c.path.join(' ')} <command>`,
      `  ${c.summary}`,
      `  Commands: ${c.subcommands.join(', ')}`,
    ].join('\n');
  const args = c.arguments.map((a) => {
    const name = `${a.name}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  const aliases = c.aliases.length ? `  (also: ${c.aliases.join(', ')})` : '';
  const lines = [`dlake ${[...c.path, ...args].join(' ')}${aliases}`, `  ${c.summary}`];
  if (c.arguments.length) {
    lines.push('  Arguments:');
    for (const a of c.arguments) {
      const req = a.required ? 'required' : 'optional';
      lines.push(`    ${a.name}  ${a.description} (${req}${a.variadic ? ', repeatable' : ''})`);
    }
  }
  if (c.options.length) {
    lines.push('  Options:');
    lines.push(...c.options.map(optionLine));
  }
  if (c.examples.length) {
    lines.push('  Examples:');
    lines.push(...c.examples.map((e) => `    $ ${e}`));
  }
  return lines.join('\n');
}

/** `whole`: the global options and exit codes follow the commands (not for one command's description). */
export function describeText(d: Description, whole: boolean): string {
  const parts = d.commands.map(commandText);
  if (whole) {
    parts.push(
      ['Global options (accepted by every command):', ...d.globalOptions.map(optionLine)].join('\n'),
    );
    parts.push(
      ['Exit codes:', ...d.exitCodes.map((e) => `    ${String(e.code).padStart(3)}  ${e.meaning}`)].join(
        '\n',
      ),
    );
  }
  return `${parts.join('\n\n')}\n`;
}
