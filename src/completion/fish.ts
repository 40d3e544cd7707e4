// The fish script: the same walk as the bash one, printing `candidate<Tab>description` lines; fish does
// the matching against the typed token itself.
import { allCommands, type CompletionModel, type OptionSpec } from './model.js';
import { argumentCases, encodeValues, fq, offeredOptions, subcommandNames } from './words.js';

/** A `printf` of `name<Tab>description` lines, or nothing when there are none. */
function lines(pairs: Array<[string, string]>, indent: string): string {
  if (pairs.length === 0) return `${indent}true`;
  return `${indent}printf '%s\\t%s\\n' ${pairs.map(([n, d]) => `${fq(n)} ${fq(d)}`).join(' ')}`;
}

function cases(entries: Array<[patterns: string[], body: string]>, fallback: string): string {
  const body = entries.map(([patterns, b]) => `        case ${patterns.map(fq).join(' ')}\n${b}`);
  return [...body, `        case '*'\n            ${fallback}`].join('\n');
}

export function fishScript(model: CompletionModel): string {
  const commands = [...allCommands(model.root)];
  const parents = commands.filter((c) => c.subcommands.length > 0);
  const indent = '            ';

  const sub = cases(
    parents.flatMap((c) =>
      c.subcommands.map((s): [string[], string] => [
        [s.name, ...s.aliases].map((n) => `${c.key}/${n}`),
        `${indent}echo ${fq(s.name)}`,
      ]),
    ),
    'return 1',
  );
  const subs = cases(
    parents.map((c) => [[c.key], lines(subcommandNames(c).primary, indent)]),
    'return 1',
  );
  const more = cases(
    parents.map((c) => [[c.key], lines(subcommandNames(c).secondary, indent)]),
    'return 1',
  );
  const opts = cases(
    commands.map((c) => [[c.key], lines(offeredOptions(c.options), indent)]),
    'return 1',
  );
  const valueOption = (o: OptionSpec, key: string): [string[], string] => [
    o.names.map((n) => key + n),
    `${indent}printf '%s\\n' ${o.takes} ${fq(encodeValues(o.values))}\n${indent}return`,
  ];
  const own = cases(
    commands
      .filter((c) => c.key !== '')
      .flatMap((c) => c.options.filter((o) => o.takes !== 'flag').map((o) => valueOption(o, `${c.key}/`))),
    'true',
  );
  const global = cases(
    model.root.options.filter((o) => o.takes !== 'flag').map((o) => valueOption(o, '')),
    'true',
  );
  const args = cases(
    commands.flatMap((c) =>
      argumentCases(c).map(({ index, values }): [string[], string] => [
        [`${c.key}/${index}`],
        `${indent}echo ${fq(values)}`,
      ]),
    ),
    'return 1',
  );

  return `# fish completion for dlake. Generated from the command tree by scripts/gen-completions.ts: do not edit.
#
# Install:  dlake completion fish > ~/.config/fish/completions/dlake.fish
# Profile names are read from the local config store when Tab is pressed (dlake completion --list-profiles).

# The subcommand a word names (aliases resolved); status 1 if none.
function __dlake_sub --argument-names cmd word
    switch "$cmd/$word"
${sub}
    end
end

# The subcommands of a command path; status 1 if none.
function __dlake_subs --argument-names cmd
    switch "$cmd"
${subs}
    end
end

# Aliases, offered when no subcommand matches the typed prefix.
function __dlake_more --argument-names cmd
    switch "$cmd"
${more}
    end
end

# The options of a command itself.
function __dlake_opts --argument-names cmd
    switch "$cmd"
${opts}
    end
end

# The root's options, accepted after any subcommand too.
function __dlake_globals
${lines(offeredOptions(model.globals), '    ')}
end

# For an option that takes a value: "value" or "optional", then its values (words, @profiles or @files).
# Nothing for an option that takes no value.
function __dlake_opt --argument-names cmd opt
    switch "$cmd/$opt"
${own}
    end
    switch "$opt"
${global}
    end
end

# The values of positional argument number $index.
function __dlake_arg --argument-names cmd index
    switch "$cmd/$index"
${args}
    end
end

# Prints the candidates of $vals (words, @profiles or @files), each after $before.
function __dlake_values --argument-names vals typed before
    switch "$vals"
        case @profiles
            for p in (dlake completion --list-profiles 2>/dev/null)
                printf '%s%s\\n' "$before" "$p"
            end
        case @files
            for f in (__fish_complete_path "$typed")
                printf '%s%s\\n' "$before" "$f"
            end
        case '*'
            for v in (string split -n ' ' -- "$vals")
                printf '%s%s\\n' "$before" "$v"
            end
    end
end

function __dlake_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmd ''
    set -l pos 0
    set -l dashdash 0
    set -l i 2
    # Walk the words before the cursor: find the command they name and how many positionals it has.
    while test $i -le (count $tokens)
        set -l w $tokens[$i]
        set -l sub ''
        test $pos -eq 0; and set sub (__dlake_sub "$cmd" "$w")
        if test $dashdash -eq 0; and string match -q -- '-?*' "$w"
            if test "$w" = --
                set dashdash 1
            else if not string match -q -- '*=*' "$w"
                set -l r (__dlake_opt "$cmd" "$w")
                set -l next $tokens[(math $i + 1)]
                # A required value is the next word; an optional one only when it is not an option.
                if test "$r[1]" = value; or begin; test "$r[1]" = optional; and not string match -q -- '-*' "$next"; end
                    set i (math $i + 1)
                end
            end
        else if test -n "$sub"
            if test -n "$cmd"
                set cmd "$cmd $sub"
            else
                set cmd $sub
            end
        else
            set pos (math $pos + 1)
        end
        set i (math $i + 1)
    end

    # The value of an option: "-o <Tab>" or "--output=<Tab>".
    if test $dashdash -eq 0
        if string match -q -- '-?*=*' "$cur"
            set -l parts (string split -m 1 = -- "$cur")
            set -l r (__dlake_opt "$cmd" "$parts[1]")
            if test "$r[1]" = value; or test -n "$r[2]"
                __dlake_values "$r[2]" "$parts[2]" "$parts[1]="
                return
            end
        else if test (count $tokens) -gt 1; and string match -q -- '-?*' "$tokens[-1]"
            and not string match -q -- '*=*' "$tokens[-1]"
            set -l r (__dlake_opt "$cmd" "$tokens[-1]")
            if test "$r[1]" = value; or test -n "$r[2]"
                __dlake_values "$r[2]" "$cur" ''
                return
            end
        end
    end

    if test $dashdash -eq 0; and string match -q -- '-*' "$cur"
        set -l own (__dlake_opts "$cmd")
        printf '%s\\n' $own
        if test -n "$cmd"
            set -l names (string replace -r '\\t.*' '' -- $own)
            for g in (__dlake_globals)
                contains -- (string replace -r '\\t.*' '' -- $g) $names; or printf '%s\\n' $g
            end
        end
        return
    end
    set -l subs (__dlake_subs "$cmd")
    if test $pos -eq 0; and test (count $subs) -gt 0
        printf '%s\\n' $subs
        set -l names (string replace -r '\\t.*' '' -- $subs)
        if not string match -q -r -- '^'(string escape --style=regex -- "$cur") $names
            __dlake_more "$cmd"
        end
        return
    end
    set -l vals (__dlake_arg "$cmd" $pos)
    test -n "$vals"; and __dlake_values "$vals" "$cur" ''
end

complete -c dlake -e
complete -c dlake -f -a '(__dlake_complete)'
`;
}
