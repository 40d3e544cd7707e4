// The bash script: lookup tables generated from the model, and one fixed function that walks the words
// typed so far (options and their values, subcommands and aliases, positionals) to find what fits next.
// Written for bash 3.2 too (macOS): no associative arrays, no mapfile.
import { allCommands, type CompletionModel, type OptionSpec } from './model.js';
import { argumentCases, encodeValues, offeredOptions, sq, subcommandNames } from './words.js';

export function bashScript(model: CompletionModel): string {
  const commands = [...allCommands(model.root)];
  const parents = commands.filter((c) => c.subcommands.length > 0);
  const names = (pairs: Array<[string, string]>) => sq(pairs.map(([n]) => n).join(' '));

  const sub = parents.flatMap((c) =>
    c.subcommands.map(
      (s) =>
        `    ${[s.name, ...s.aliases].map((n) => sq(`${c.key}/${n}`)).join('|')}) REPLY=${sq(s.name)} ;;`,
    ),
  );
  const subs = parents.map((c) => {
    const { primary, secondary } = subcommandNames(c);
    return `    ${sq(c.key)}) REPLY=${names(primary)} more=${names(secondary)} ;;`;
  });
  const opts = commands.map((c) => `    ${sq(c.key)}) REPLY=${names(offeredOptions(c.options))} ;;`);
  const valueOption = (o: OptionSpec, key: string) =>
    `    ${o.names.map((n) => sq(key + n)).join('|')}) REPLY=${o.takes} vals=${sq(encodeValues(o.values))} ;;`;
  const valueOptions = (c: { key: string; options: OptionSpec[] }, prefix: string) =>
    c.options.filter((o) => o.takes !== 'flag').map((o) => valueOption(o, prefix));
  const own = commands.filter((c) => c.key !== '').flatMap((c) => valueOptions(c, `${c.key}/`));
  const global = valueOptions({ key: '', options: model.root.options }, '');
  const args = commands.flatMap((c) =>
    argumentCases(c).map(
      ({ index, values }) => `    ${sq(`${c.key}/`)}${index === '*' ? '*' : index}) REPLY=${sq(values)} ;;`,
    ),
  );

  return `# bash completion for dlake. Generated from the command tree by scripts/gen-completions.ts: do not edit.
#
# Install:  dlake completion bash > /etc/bash_completion.d/dlake
#      or:  echo 'source <(dlake completion bash)' >> ~/.bashrc
# Profile names are read from the local config store when Tab is pressed (dlake completion --list-profiles).

# $1: command path, $2: word. REPLY: the subcommand the word names (aliases resolved); status 1 if none.
_dlake_sub() {
  case "$1/$2" in
${sub.join('\n')}
    *) return 1 ;;
  esac
}

# $1: command path. REPLY: its subcommands; more: aliases, offered when no subcommand matches. Status 1 if none.
_dlake_subs() {
  case "$1" in
${subs.join('\n')}
    *) return 1 ;;
  esac
}

# $1: command path. REPLY: the options of that command itself.
_dlake_opts() {
  case "$1" in
${opts.join('\n')}
    *) REPLY='' ;;
  esac
}

# The root's options, accepted after any subcommand too.
_dlake_globals() {
  REPLY=${names(offeredOptions(model.globals))}
}

# $1: command path, $2: option. REPLY: value or optional; vals: its values (words, @profiles, @files).
# Status 1 for an option that takes no value.
_dlake_opt() {
  case "$1/$2" in
${own.join('\n')}
    *)
      case "$2" in
${global.map((l) => `    ${l}`).join('\n')}
        *) return 1 ;;
      esac
      ;;
  esac
}

# $1: command path, $2: index of the positional argument. REPLY: its values.
_dlake_arg() {
  case "$1/$2" in
${args.join('\n')}
    *) REPLY='' ;;
  esac
}

# $1: values (words, @profiles or @files), $2: the text typed, $3: text to put before each candidate.
_dlake_add() {
  local w list=$1
  case $list in
    @profiles) list=$(dlake completion --list-profiles 2>/dev/null) ;;
    @files)
      compopt -o filenames 2>/dev/null
      while IFS= read -r w; do COMPREPLY+=("$3$w"); done < <(compgen -f -- "$2")
      return
      ;;
  esac
  while IFS= read -r w; do [[ -n $w ]] && COMPREPLY+=("$3$w"); done < <(compgen -W "$list" -- "$2")
}

_dlake() {
  local cmd='' w cur prev opt='' before='' REPLY='' more='' vals='' own
  local -i i=1 pos=0 dashdash=0
  COMPREPLY=()
  # Walk the words before the cursor: find the command they name and how many positionals it has.
  while (( i < COMP_CWORD )); do
    w=\${COMP_WORDS[i]}
    if (( !dashdash )) && [[ $w == -?* ]]; then
      if [[ $w == -- ]]; then
        dashdash=1
      elif [[ $w != *=* && \${COMP_WORDS[i+1]} == = ]]; then
        (( i += 2 )) # --opt=value, split at '=' by COMP_WORDBREAKS
      elif _dlake_opt "$cmd" "$w"; then
        # A required value is the next word; an optional one only when it is not an option.
        if [[ $REPLY == value || \${COMP_WORDS[i+1]} != -* ]]; then (( i++ )); fi
      fi
    elif (( pos == 0 )) && _dlake_sub "$cmd" "$w"; then
      cmd=\${cmd:+$cmd }$REPLY
    else
      (( pos++ ))
    fi
    (( i++ ))
  done

  cur=\${COMP_WORDS[COMP_CWORD]}
  prev=\${COMP_WORDS[COMP_CWORD-1]}
  # The value of an option: "-o <Tab>", "--output=<Tab>" (split or not at '=').
  if (( !dashdash )); then
    if [[ $cur == = && $prev == -?* ]]; then
      opt=$prev cur=''
    elif [[ $prev == = ]] && (( COMP_CWORD > 2 )) && [[ \${COMP_WORDS[COMP_CWORD-2]} == -?* ]]; then
      opt=\${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $cur == -?*=* ]]; then
      opt=\${cur%%=*} before=\${cur%%=*}= cur=\${cur#*=}
    elif (( COMP_CWORD > 1 )) && [[ $prev == -?* && $prev != *=* ]]; then
      opt=$prev
    fi
    if [[ -n $opt ]] && _dlake_opt "$cmd" "$opt" && [[ $REPLY == value || -n $vals ]]; then
      _dlake_add "$vals" "$cur" "$before"
      return 0
    fi
    cur=\${COMP_WORDS[COMP_CWORD]}
  fi

  if (( !dashdash )) && [[ $cur == -* ]]; then
    _dlake_opts "$cmd"
    own=$REPLY
    if [[ -n $cmd ]]; then
      _dlake_globals
      for w in $REPLY; do [[ " $own " == *" $w "* ]] || own+=" $w"; done
    fi
    _dlake_add "$own" "$cur"
  elif (( pos == 0 )) && _dlake_subs "$cmd"; then
    _dlake_add "$REPLY" "$cur"
    (( \${#COMPREPLY[@]} )) || _dlake_add "$more" "$cur"
  else
    _dlake_arg "$cmd" "$pos"
    [[ -n $REPLY ]] && _dlake_add "$REPLY" "$cur"
  fi
  return 0
}

complete -F _dlake dlake
`;
}
