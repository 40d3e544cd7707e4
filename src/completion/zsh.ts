// The zsh script: the same walk as the bash one, with zsh's descriptions (`_describe`) and file completion
// (`_files`). Works both from $fpath (autoloaded as _dlake) and sourced (`source <(dlake completion zsh)`).
import { allCommands, type CompletionModel, type OptionSpec } from './model.js';
import { argumentCases, encodeValues, offeredOptions, sq, subcommandNames } from './words.js';

/** `name:description` entries for `_describe`, one quoted word each. */
function described(pairs: Array<[string, string]>): string {
  return pairs.map(([n, d]) => sq(`${n.replace(/:/g, '\\:')}:${d}`)).join(' ');
}

export function zshScript(model: CompletionModel): string {
  const commands = [...allCommands(model.root)];
  const parents = commands.filter((c) => c.subcommands.length > 0);

  const sub = parents.flatMap((c) =>
    c.subcommands.map(
      (s) =>
        `    ${[s.name, ...s.aliases].map((n) => sq(`${c.key}/${n}`)).join('|')}) REPLY=${sq(s.name)} ;;`,
    ),
  );
  const subs = parents.map((c) => {
    const { primary, secondary } = subcommandNames(c);
    return `    ${sq(c.key)}) reply=(${described(primary)}) more=(${described(secondary)}) ;;`;
  });
  const opts = commands.map((c) => `    ${sq(c.key)}) reply=(${described(offeredOptions(c.options))}) ;;`);
  const valueOption = (o: OptionSpec, key: string) =>
    `${o.names.map((n) => sq(key + n)).join('|')}) REPLY=${o.takes} vals=${sq(encodeValues(o.values))} ;;`;
  const own = commands
    .filter((c) => c.key !== '')
    .flatMap((c) =>
      c.options.filter((o) => o.takes !== 'flag').map((o) => `    ${valueOption(o, `${c.key}/`)}`),
    );
  const global = model.root.options
    .filter((o) => o.takes !== 'flag')
    .map((o) => `        ${valueOption(o, '')}`);
  const args = commands.flatMap((c) =>
    argumentCases(c).map(
      ({ index, values }) => `    ${sq(`${c.key}/`)}${index === '*' ? '*' : index}) vals=${sq(values)} ;;`,
    ),
  );

  return `#compdef dlake
# zsh completion for dlake. Generated from the command tree by scripts/gen-completions.ts: do not edit.
#
# Install:  dlake completion zsh > "\${fpath[1]}/_dlake"    (then start a new shell)
#      or:  echo 'source <(dlake completion zsh)' >> ~/.zshrc    (after compinit)
# Profile names are read from the local config store when Tab is pressed (dlake completion --list-profiles).

# $1: command path, $2: word. REPLY: the subcommand the word names (aliases resolved); status 1 if none.
__dlake_sub() {
  case "$1/$2" in
${sub.join('\n')}
    *) return 1 ;;
  esac
}

# $1: command path. reply: its subcommands; more: aliases, offered when no subcommand matches. Status 1 if none.
__dlake_subs() {
  case "$1" in
${subs.join('\n')}
    *) return 1 ;;
  esac
}

# $1: command path. reply: the options of that command itself.
__dlake_opts() {
  case "$1" in
${opts.join('\n')}
    *) reply=() ;;
  esac
}

# The root's options, accepted after any subcommand too.
__dlake_globals() {
  reply=(${described(offeredOptions(model.globals))})
}

# $1: command path, $2: option. REPLY: value or optional; vals: its values (words, @profiles, @files).
# Status 1 for an option that takes no value.
__dlake_opt() {
  case "$1/$2" in
${own.join('\n')}
    *)
      case "$2" in
${global.join('\n')}
        *) return 1 ;;
      esac
      ;;
  esac
}

# $1: command path, $2: index of the positional argument. vals: its values; status 1 if none.
__dlake_arg() {
  case "$1/$2" in
${args.join('\n')}
    *) return 1 ;;
  esac
  [[ -n $vals ]]
}

# Offers $vals: words, @profiles or @files.
__dlake_values() {
  local -a candidates
  case $vals in
    @profiles) candidates=(\${(f)"$(dlake completion --list-profiles 2>/dev/null)"}) ;;
    @files) _files; return ;;
    *) candidates=(\${=vals}) ;;
  esac
  compadd -a candidates
}

_dlake() {
  local cmd='' w cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} REPLY='' vals='' name
  local -a reply more own names
  integer i=2 pos=0 dashdash=0
  # Walk the words before the cursor: find the command they name and how many positionals it has.
  while (( i < CURRENT )); do
    w=\${words[i]}
    if (( !dashdash )) && [[ $w == -?* ]]; then
      if [[ $w == -- ]]; then
        dashdash=1
      elif [[ $w != *=* ]] && __dlake_opt "$cmd" "$w"; then
        # A required value is the next word; an optional one only when it is not an option.
        if [[ $REPLY == value || \${words[i+1]} != -* ]]; then (( i++ )); fi
      fi
    elif (( pos == 0 )) && __dlake_sub "$cmd" "$w"; then
      cmd=\${cmd:+$cmd }$REPLY
    else
      (( pos++ ))
    fi
    (( i++ ))
  done

  # The value of an option: "-o <Tab>" or "--output=<Tab>".
  if (( !dashdash )); then
    if [[ $cur == -?*=* ]] && __dlake_opt "$cmd" "\${cur%%=*}" && [[ $REPLY == value || -n $vals ]]; then
      compset -P '*='
      __dlake_values
      return
    fi
    if (( CURRENT > 2 )) && [[ $prev == -?* && $prev != *=* ]] && __dlake_opt "$cmd" "$prev" &&
      [[ $REPLY == value || -n $vals ]]; then
      __dlake_values
      return
    fi
  fi

  if (( !dashdash )) && [[ $cur == -* ]]; then
    __dlake_opts "$cmd"
    own=("\${reply[@]}")
    if [[ -n $cmd ]]; then
      __dlake_globals
      for w in "\${reply[@]}"; do
        name=\${w%%:*}
        (( \${own[(I)\${(b)name}:*]} )) || own+=("$w")
      done
    fi
    _describe -t options option own
  elif (( pos == 0 )) && __dlake_subs "$cmd"; then
    names=("\${(@)reply%%:*}")
    _describe -t commands command reply
    if [[ -z \${(M)names:#\${(b)PREFIX}*} ]] && (( $#more )); then
      _describe -t aliases alias more
    fi
  elif __dlake_arg "$cmd" "$pos"; then
    __dlake_values
  fi
}

if [[ $funcstack[1] == _dlake ]]; then
  _dlake "$@"
else
  compdef _dlake dlake
fi
`;
}
