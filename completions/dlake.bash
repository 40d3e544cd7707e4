# bash completion for dlake. Generated from the command tree by scripts/gen-completions.ts: do not edit.
#
# Install:  dlake completion bash > /etc/bash_completion.d/dlake
#      or:  echo 'source <(dlake completion bash)' >> ~/.bashrc
# Profile names are read from the local config store when Tab is pressed (dlake completion --list-profiles).

# $1: command path, $2: word. REPLY: the subcommand the word names (aliases resolved); status 1 if none.
_dlake_sub() {
  case "$1/$2" in
    '/login') REPLY='login' ;;
    '/logout') REPLY='logout' ;;
    '/whoami') REPLY='whoami' ;;
    '/doctor') REPLY='doctor' ;;
    '/token') REPLY='token' ;;
    '/profile') REPLY='profile' ;;
    '/catalog') REPLY='catalog' ;;
    '/source') REPLY='source' ;;
    '/sql') REPLY='sql' ;;
    '/job') REPLY='job' ;;
    '/top') REPLY='top' ;;
    '/search') REPLY='search' ;;
    '/reflection') REPLY='reflection' ;;
    '/user') REPLY='user' ;;
    '/role') REPLY='role' ;;
    '/access') REPLY='access' ;;
    '/pat') REPLY='pat' ;;
    '/queue') REPLY='queue' ;;
    '/project') REPLY='project' ;;
    '/engine') REPLY='engine' ;;
    '/pull') REPLY='pull' ;;
    '/plan') REPLY='plan' ;;
    '/apply') REPLY='apply' ;;
    '/diff') REPLY='diff' ;;
    '/api') REPLY='api' ;;
    '/version') REPLY='version' ;;
    '/describe') REPLY='describe' ;;
    '/mcp') REPLY='mcp' ;;
    '/agents') REPLY='agents' ;;
    '/completion') REPLY='completion' ;;
    '/help') REPLY='help' ;;
    'token/exchange') REPLY='exchange' ;;
    'token/help') REPLY='help' ;;
    'token exchange/client-credentials') REPLY='client-credentials' ;;
    'token exchange/jwt') REPLY='jwt' ;;
    'token exchange/pat') REPLY='pat' ;;
    'token exchange/help') REPLY='help' ;;
    'profile/list'|'profile/ls') REPLY='list' ;;
    'profile/show') REPLY='show' ;;
    'profile/use') REPLY='use' ;;
    'profile/set') REPLY='set' ;;
    'profile/delete'|'profile/rm') REPLY='delete' ;;
    'profile/help') REPLY='help' ;;
    'catalog/ls'|'catalog/list') REPLY='ls' ;;
    'catalog/get') REPLY='get' ;;
    'catalog/tree') REPLY='tree' ;;
    'catalog/create') REPLY='create' ;;
    'catalog/update') REPLY='update' ;;
    'catalog/delete'|'catalog/rm') REPLY='delete' ;;
    'catalog/refresh') REPLY='refresh' ;;
    'catalog/tags') REPLY='tags' ;;
    'catalog/wiki') REPLY='wiki' ;;
    'catalog/grants') REPLY='grants' ;;
    'catalog/lineage') REPLY='lineage' ;;
    'catalog/help') REPLY='help' ;;
    'source/list'|'source/ls') REPLY='list' ;;
    'source/get') REPLY='get' ;;
    'source/types') REPLY='types' ;;
    'source/create') REPLY='create' ;;
    'source/update') REPLY='update' ;;
    'source/delete'|'source/rm') REPLY='delete' ;;
    'source/help') REPLY='help' ;;
    'job/list'|'job/ls') REPLY='list' ;;
    'job/get') REPLY='get' ;;
    'job/why') REPLY='why' ;;
    'job/profile') REPLY='profile' ;;
    'job/wait') REPLY='wait' ;;
    'job/cancel') REPLY='cancel' ;;
    'job/results') REPLY='results' ;;
    'job/export') REPLY='export' ;;
    'job/help') REPLY='help' ;;
    'reflection/list'|'reflection/ls') REPLY='list' ;;
    'reflection/get') REPLY='get' ;;
    'reflection/create') REPLY='create' ;;
    'reflection/update') REPLY='update' ;;
    'reflection/delete'|'reflection/rm') REPLY='delete' ;;
    'reflection/refresh') REPLY='refresh' ;;
    'reflection/summary') REPLY='summary' ;;
    'reflection/help') REPLY='help' ;;
    'user/list'|'user/ls') REPLY='list' ;;
    'user/create') REPLY='create' ;;
    'user/get') REPLY='get' ;;
    'user/update') REPLY='update' ;;
    'user/delete'|'user/rm') REPLY='delete' ;;
    'user/help') REPLY='help' ;;
    'role/list'|'role/ls') REPLY='list' ;;
    'role/get') REPLY='get' ;;
    'role/create') REPLY='create' ;;
    'role/update') REPLY='update' ;;
    'role/delete'|'role/rm') REPLY='delete' ;;
    'role/add-member') REPLY='add-member' ;;
    'role/remove-member') REPLY='remove-member' ;;
    'role/help') REPLY='help' ;;
    'access/why') REPLY='why' ;;
    'access/help') REPLY='help' ;;
    'pat/list'|'pat/ls') REPLY='list' ;;
    'pat/create') REPLY='create' ;;
    'pat/delete'|'pat/revoke') REPLY='delete' ;;
    'pat/help') REPLY='help' ;;
    'queue/list'|'queue/ls') REPLY='list' ;;
    'queue/get') REPLY='get' ;;
    'queue/create') REPLY='create' ;;
    'queue/update') REPLY='update' ;;
    'queue/delete'|'queue/rm') REPLY='delete' ;;
    'queue/rules') REPLY='rules' ;;
    'queue/help') REPLY='help' ;;
    'project/list'|'project/ls') REPLY='list' ;;
    'project/get') REPLY='get' ;;
    'project/help') REPLY='help' ;;
    'engine/list'|'engine/ls') REPLY='list' ;;
    'engine/get') REPLY='get' ;;
    'engine/create') REPLY='create' ;;
    'engine/update') REPLY='update' ;;
    'engine/delete'|'engine/rm') REPLY='delete' ;;
    'engine/enable') REPLY='enable' ;;
    'engine/disable') REPLY='disable' ;;
    'engine/rules') REPLY='rules' ;;
    'engine/help') REPLY='help' ;;
    'agents/install') REPLY='install' ;;
    'agents/uninstall') REPLY='uninstall' ;;
    'agents/list'|'agents/ls') REPLY='list' ;;
    'agents/help') REPLY='help' ;;
    *) return 1 ;;
  esac
}

# $1: command path. REPLY: its subcommands; more: aliases, offered when no subcommand matches. Status 1 if none.
_dlake_subs() {
  case "$1" in
    '') REPLY='login logout whoami doctor token profile catalog source sql job top search reflection user role access pat queue project engine pull plan apply diff api version describe mcp agents completion help' more='' ;;
    'token') REPLY='exchange' more='help' ;;
    'token exchange') REPLY='client-credentials jwt pat' more='help' ;;
    'profile') REPLY='list show use set delete' more='ls rm help' ;;
    'catalog') REPLY='ls get tree create update delete refresh tags wiki grants lineage' more='list rm help' ;;
    'source') REPLY='list get types create update delete' more='ls rm help' ;;
    'job') REPLY='list get why profile wait cancel results export' more='ls help' ;;
    'reflection') REPLY='list get create update delete refresh summary' more='ls rm help' ;;
    'user') REPLY='list create get update delete' more='ls rm help' ;;
    'role') REPLY='list get create update delete add-member remove-member' more='ls rm help' ;;
    'access') REPLY='why' more='help' ;;
    'pat') REPLY='list create delete' more='ls revoke help' ;;
    'queue') REPLY='list get create update delete rules' more='ls rm help' ;;
    'project') REPLY='list get' more='ls help' ;;
    'engine') REPLY='list get create update delete enable disable rules' more='ls rm help' ;;
    'agents') REPLY='install uninstall list' more='ls help' ;;
    *) return 1 ;;
  esac
}

# $1: command path. REPLY: the options of that command itself.
_dlake_opts() {
  case "$1" in
    '') REPLY='-V --version -p --profile --parallel --url --auth-url -o --output --json --query -q --quiet -v --verbose --debug --no-color --timeout --ca-file --insecure --edition --project-id --flight-url -h --help' ;;
    'login') REPLY='-u --username --password-stdin --token-stdin --credential-store -h --help' ;;
    'logout') REPLY='-h --help' ;;
    'whoami') REPLY='--check -h --help' ;;
    'doctor') REPLY='--bundle --jobs --since -h --help' ;;
    'token') REPLY='-h --help' ;;
    'token exchange') REPLY='-h --help' ;;
    'token exchange client-credentials') REPLY='--client-id --client-secret-stdin --print --credential-store -h --help' ;;
    'token exchange jwt') REPLY='--subject-token-file --subject-token-stdin --audience --print --credential-store -h --help' ;;
    'token exchange pat') REPLY='--subject-token-stdin --print --credential-store -h --help' ;;
    'token exchange help') REPLY='' ;;
    'token help') REPLY='' ;;
    'profile') REPLY='-h --help' ;;
    'profile list') REPLY='-h --help' ;;
    'profile show') REPLY='-h --help' ;;
    'profile use') REPLY='-h --help' ;;
    'profile set') REPLY='-h --help' ;;
    'profile delete') REPLY='-y --yes -h --help' ;;
    'profile help') REPLY='' ;;
    'catalog') REPLY='-h --help' ;;
    'catalog ls') REPLY='--id --page-size -h --help' ;;
    'catalog get') REPLY='--id --include --exclude -h --help' ;;
    'catalog tree') REPLY='--id --depth --concurrency --page-size -h --help' ;;
    'catalog create') REPLY='--file --dry-run -h --help' ;;
    'catalog update') REPLY='--id --file --dry-run -h --help' ;;
    'catalog delete') REPLY='--id -y --yes --dry-run -h --help' ;;
    'catalog refresh') REPLY='--id --dry-run -h --help' ;;
    'catalog tags') REPLY='--id --set --clear --dry-run -h --help' ;;
    'catalog wiki') REPLY='--id --set-file --dry-run -h --help' ;;
    'catalog grants') REPLY='--id --grant --revoke --dry-run -h --help' ;;
    'catalog lineage') REPLY='--id -h --help' ;;
    'catalog help') REPLY='' ;;
    'source') REPLY='-h --help' ;;
    'source list') REPLY='-h --help' ;;
    'source get') REPLY='-h --help' ;;
    'source types') REPLY='-h --help' ;;
    'source create') REPLY='--type --config-file --set --dry-run -h --help' ;;
    'source update') REPLY='--config-file --set --dry-run -h --help' ;;
    'source delete') REPLY='-y --yes --dry-run -h --help' ;;
    'source help') REPLY='' ;;
    'sql') REPLY='-c --command -f --file --continue-on-error --context --no-wait --max-rows --out --read-only --into --format --no-clobber --concurrency --transport --wait-timeout -y --yes -h --help' ;;
    'job') REPLY='-h --help' ;;
    'job list') REPLY='--status --user --since --until --type --queue --engine --min-duration --text --accelerated --not-accelerated --limit --wide --no-pager --out --format --wait-timeout -h --help' ;;
    'job get') REPLY='-h --help' ;;
    'job why') REPLY='-h --help' ;;
    'job profile') REPLY='--out --top -h --help' ;;
    'job wait') REPLY='--timeout --wait-timeout -y --yes -h --help' ;;
    'job cancel') REPLY='-y --yes --dry-run -h --help' ;;
    'job results') REPLY='--offset --limit --all --concurrency -h --help' ;;
    'job export') REPLY='--out --format --no-clobber --concurrency --wait-timeout --transport --resume -y --yes -h --help' ;;
    'job help') REPLY='' ;;
    'top') REPLY='--interval --once -h --help' ;;
    'search') REPLY='--type --limit -h --help' ;;
    'reflection') REPLY='-h --help' ;;
    'reflection list') REPLY='--id -h --help' ;;
    'reflection get') REPLY='-h --help' ;;
    'reflection create') REPLY='--type --id --disabled --name --display --dimension --measure --partition --sort --distribution --dry-run -h --help' ;;
    'reflection update') REPLY='--enable --disable --name --display --dimension --measure --partition --sort --distribution --dry-run -h --help' ;;
    'reflection delete') REPLY='-y --yes --dry-run -h --help' ;;
    'reflection refresh') REPLY='--wait --timeout --dry-run -h --help' ;;
    'reflection summary') REPLY='--filter --order-by --limit -h --help' ;;
    'reflection help') REPLY='' ;;
    'user') REPLY='-h --help' ;;
    'user list') REPLY='--filter -h --help' ;;
    'user create') REPLY='--first-name --last-name --email --role --password-stdin --password-prompt --dry-run -h --help' ;;
    'user get') REPLY='-h --help' ;;
    'user update') REPLY='--first-name --last-name --email --add-role --remove-role --password-stdin --password-prompt --dry-run -h --help' ;;
    'user delete') REPLY='--version -y --yes --dry-run -h --help' ;;
    'user help') REPLY='' ;;
    'role') REPLY='-h --help' ;;
    'role list') REPLY='--filter -h --help' ;;
    'role get') REPLY='-h --help' ;;
    'role create') REPLY='--description --dry-run -h --help' ;;
    'role update') REPLY='--description --dry-run -h --help' ;;
    'role delete') REPLY='-y --yes --dry-run -h --help' ;;
    'role add-member') REPLY='--user --role --dry-run -h --help' ;;
    'role remove-member') REPLY='--user --role --dry-run -h --help' ;;
    'role help') REPLY='' ;;
    'access') REPLY='-h --help' ;;
    'access why') REPLY='--id --privilege -h --help' ;;
    'access help') REPLY='' ;;
    'pat') REPLY='-h --help' ;;
    'pat list') REPLY='-h --help' ;;
    'pat create') REPLY='--label --expires --dry-run -h --help' ;;
    'pat delete') REPLY='--all -y --yes --dry-run -h --help' ;;
    'pat help') REPLY='' ;;
    'queue') REPLY='-h --help' ;;
    'queue list') REPLY='-h --help' ;;
    'queue get') REPLY='-h --help' ;;
    'queue create') REPLY='--name --cpu-tier --max-memory-per-node --max-query-memory-per-node --max-running-jobs --max-start-timeout --max-run-timeout --dry-run -h --help' ;;
    'queue update') REPLY='--name --cpu-tier --max-memory-per-node --max-query-memory-per-node --max-running-jobs --max-start-timeout --max-run-timeout --dry-run -h --help' ;;
    'queue delete') REPLY='-y --yes --dry-run -h --help' ;;
    'queue rules') REPLY='--file --dry-run -h --help' ;;
    'queue help') REPLY='' ;;
    'project') REPLY='-h --help' ;;
    'project list') REPLY='-h --help' ;;
    'project get') REPLY='-h --help' ;;
    'project help') REPLY='' ;;
    'engine') REPLY='-h --help' ;;
    'engine list') REPLY='-h --help' ;;
    'engine get') REPLY='-h --help' ;;
    'engine create') REPLY='--name --size --min-replicas --max-replicas --max-concurrency --auto-stop-delay --queue-time-limit --runtime-limit --drain-time-limit --description --cloud-tag --dry-run -h --help' ;;
    'engine update') REPLY='--name --size --min-replicas --max-replicas --max-concurrency --auto-stop-delay --queue-time-limit --runtime-limit --drain-time-limit --description --cloud-tag --dry-run -h --help' ;;
    'engine delete') REPLY='-y --yes --dry-run -h --help' ;;
    'engine enable') REPLY='--dry-run -h --help' ;;
    'engine disable') REPLY='--dry-run -h --help' ;;
    'engine rules') REPLY='--file --dry-run -h --help' ;;
    'engine help') REPLY='' ;;
    'pull') REPLY='--dir --kinds --prune -h --help' ;;
    'plan') REPLY='--dir --prune --map --refresh-secrets --out --exit-code -h --help' ;;
    'apply') REPLY='--dir --plan --prune --map --refresh-secrets --dry-run -y --yes --allow-breaking --concurrency -h --help' ;;
    'diff') REPLY='-p --profile --map -h --help' ;;
    'api') REPLY='--data --paginate -h --help' ;;
    'version') REPLY='-h --help' ;;
    'describe') REPLY='-h --help' ;;
    'mcp') REPLY='-p --profile --allow-writes --allow-path --max-result-bytes -h --help' ;;
    'agents') REPLY='-h --help' ;;
    'agents install') REPLY='--scope -p --profile --allow-writes --allow-path --max-result-bytes --command --dry-run --force -h --help' ;;
    'agents uninstall') REPLY='--scope --dry-run --force -h --help' ;;
    'agents list') REPLY='-h --help' ;;
    'agents help') REPLY='' ;;
    'completion') REPLY='-h --help' ;;
    'help') REPLY='' ;;
    *) REPLY='' ;;
  esac
}

# The root's options, accepted after any subcommand too.
_dlake_globals() {
  REPLY='-p --profile --parallel --url --auth-url -o --output --json --query -q --quiet -v --verbose --debug --no-color --timeout --ca-file --insecure --edition --project-id --flight-url'
}

# $1: command path, $2: option. REPLY: value or optional; vals: its values (words, @profiles, @files).
# Status 1 for an option that takes no value.
_dlake_opt() {
  case "$1/$2" in
    'login/-u'|'login/--username') REPLY=value vals='' ;;
    'login/--password') REPLY=value vals='' ;;
    'login/--token') REPLY=value vals='' ;;
    'login/--credential-store') REPLY=value vals='auto keyring file' ;;
    'doctor/--bundle') REPLY=value vals='@files' ;;
    'doctor/--jobs') REPLY=value vals='' ;;
    'doctor/--since') REPLY=value vals='' ;;
    'token exchange client-credentials/--client-id') REPLY=value vals='' ;;
    'token exchange client-credentials/--client-secret') REPLY=value vals='' ;;
    'token exchange client-credentials/--credential-store') REPLY=value vals='auto keyring file' ;;
    'token exchange jwt/--subject-token-file') REPLY=value vals='@files' ;;
    'token exchange jwt/--subject-token') REPLY=value vals='' ;;
    'token exchange jwt/--audience') REPLY=value vals='' ;;
    'token exchange jwt/--credential-store') REPLY=value vals='auto keyring file' ;;
    'token exchange pat/--subject-token') REPLY=value vals='' ;;
    'token exchange pat/--credential-store') REPLY=value vals='auto keyring file' ;;
    'catalog ls/--page-size') REPLY=value vals='' ;;
    'catalog get/--include') REPLY=value vals='' ;;
    'catalog get/--exclude') REPLY=value vals='' ;;
    'catalog tree/--depth') REPLY=value vals='' ;;
    'catalog tree/--concurrency') REPLY=value vals='' ;;
    'catalog tree/--page-size') REPLY=value vals='' ;;
    'catalog create/--file') REPLY=value vals='@files' ;;
    'catalog update/--file') REPLY=value vals='@files' ;;
    'catalog tags/--set') REPLY=value vals='' ;;
    'catalog wiki/--set-file') REPLY=value vals='@files' ;;
    'catalog grants/--grant') REPLY=value vals='' ;;
    'catalog grants/--revoke') REPLY=value vals='' ;;
    'source create/--type') REPLY=value vals='AMAZONELASTIC REDSHIFT S3 ADLS AZURE_STORAGE ELASTIC HDFS HIVE MAPRFS MSSQL MONGO MYSQL NAS ORACLE POSTGRES HBASE DB2' ;;
    'source create/--config-file') REPLY=value vals='@files' ;;
    'source create/--set') REPLY=value vals='' ;;
    'source update/--config-file') REPLY=value vals='@files' ;;
    'source update/--set') REPLY=value vals='' ;;
    'sql/-c'|'sql/--command') REPLY=value vals='' ;;
    'sql/-f'|'sql/--file') REPLY=value vals='@files' ;;
    'sql/--context') REPLY=value vals='' ;;
    'sql/--max-rows') REPLY=value vals='' ;;
    'sql/--out') REPLY=value vals='@files' ;;
    'sql/--into') REPLY=value vals='' ;;
    'sql/--format') REPLY=value vals='csv json ndjson parquet' ;;
    'sql/--concurrency') REPLY=value vals='' ;;
    'sql/--transport') REPLY=value vals='auto flight rest' ;;
    'sql/--wait-timeout') REPLY=value vals='' ;;
    'job list/--status') REPLY=value vals='' ;;
    'job list/--user') REPLY=value vals='' ;;
    'job list/--since') REPLY=value vals='' ;;
    'job list/--until') REPLY=value vals='' ;;
    'job list/--type') REPLY=value vals='' ;;
    'job list/--queue') REPLY=value vals='' ;;
    'job list/--engine') REPLY=value vals='' ;;
    'job list/--min-duration') REPLY=value vals='' ;;
    'job list/--text') REPLY=value vals='' ;;
    'job list/--limit') REPLY=value vals='' ;;
    'job list/--out') REPLY=value vals='@files' ;;
    'job list/--format') REPLY=value vals='csv json ndjson parquet' ;;
    'job list/--wait-timeout') REPLY=value vals='' ;;
    'job profile/--out') REPLY=value vals='@files' ;;
    'job profile/--top') REPLY=value vals='' ;;
    'job wait/--timeout') REPLY=value vals='' ;;
    'job wait/--wait-timeout') REPLY=value vals='' ;;
    'job results/--offset') REPLY=value vals='' ;;
    'job results/--limit') REPLY=value vals='' ;;
    'job results/--concurrency') REPLY=value vals='' ;;
    'job export/--out') REPLY=value vals='@files' ;;
    'job export/--format') REPLY=value vals='csv json ndjson parquet' ;;
    'job export/--concurrency') REPLY=value vals='' ;;
    'job export/--wait-timeout') REPLY=value vals='' ;;
    'job export/--transport') REPLY=value vals='auto flight rest' ;;
    'top/--interval') REPLY=value vals='' ;;
    'search/--type') REPLY=value vals='' ;;
    'search/--limit') REPLY=value vals='' ;;
    'reflection create/--type') REPLY=value vals='raw aggregation' ;;
    'reflection create/--name') REPLY=value vals='' ;;
    'reflection create/--display') REPLY=value vals='' ;;
    'reflection create/--dimension') REPLY=value vals='' ;;
    'reflection create/--measure') REPLY=value vals='' ;;
    'reflection create/--partition') REPLY=value vals='' ;;
    'reflection create/--sort') REPLY=value vals='' ;;
    'reflection create/--distribution') REPLY=value vals='' ;;
    'reflection update/--name') REPLY=value vals='' ;;
    'reflection update/--display') REPLY=value vals='' ;;
    'reflection update/--dimension') REPLY=value vals='' ;;
    'reflection update/--measure') REPLY=value vals='' ;;
    'reflection update/--partition') REPLY=value vals='' ;;
    'reflection update/--sort') REPLY=value vals='' ;;
    'reflection update/--distribution') REPLY=value vals='' ;;
    'reflection refresh/--timeout') REPLY=value vals='' ;;
    'reflection summary/--filter') REPLY=value vals='' ;;
    'reflection summary/--order-by') REPLY=value vals='reflectionName datasetName reflectionType -reflectionName -datasetName -reflectionType' ;;
    'reflection summary/--limit') REPLY=value vals='' ;;
    'user list/--filter') REPLY=value vals='' ;;
    'user create/--first-name') REPLY=value vals='' ;;
    'user create/--last-name') REPLY=value vals='' ;;
    'user create/--email') REPLY=value vals='' ;;
    'user create/--role') REPLY=value vals='' ;;
    'user create/--password') REPLY=value vals='' ;;
    'user update/--first-name') REPLY=value vals='' ;;
    'user update/--last-name') REPLY=value vals='' ;;
    'user update/--email') REPLY=value vals='' ;;
    'user update/--add-role') REPLY=value vals='' ;;
    'user update/--remove-role') REPLY=value vals='' ;;
    'user update/--password') REPLY=value vals='' ;;
    'user delete/--version') REPLY=value vals='' ;;
    'role list/--filter') REPLY=value vals='' ;;
    'role create/--description') REPLY=value vals='' ;;
    'role update/--description') REPLY=value vals='' ;;
    'role add-member/--user') REPLY=value vals='' ;;
    'role add-member/--role') REPLY=value vals='' ;;
    'role remove-member/--user') REPLY=value vals='' ;;
    'role remove-member/--role') REPLY=value vals='' ;;
    'access why/--privilege') REPLY=value vals='' ;;
    'pat create/--label') REPLY=value vals='' ;;
    'pat create/--expires') REPLY=value vals='' ;;
    'queue create/--name') REPLY=value vals='' ;;
    'queue create/--cpu-tier') REPLY=value vals='BACKGROUND LOW MEDIUM HIGH CRITICAL' ;;
    'queue create/--max-memory-per-node') REPLY=value vals='' ;;
    'queue create/--max-query-memory-per-node') REPLY=value vals='' ;;
    'queue create/--max-running-jobs') REPLY=value vals='' ;;
    'queue create/--max-start-timeout') REPLY=value vals='' ;;
    'queue create/--max-run-timeout') REPLY=value vals='' ;;
    'queue update/--name') REPLY=value vals='' ;;
    'queue update/--cpu-tier') REPLY=value vals='BACKGROUND LOW MEDIUM HIGH CRITICAL' ;;
    'queue update/--max-memory-per-node') REPLY=value vals='' ;;
    'queue update/--max-query-memory-per-node') REPLY=value vals='' ;;
    'queue update/--max-running-jobs') REPLY=value vals='' ;;
    'queue update/--max-start-timeout') REPLY=value vals='' ;;
    'queue update/--max-run-timeout') REPLY=value vals='' ;;
    'queue rules/--file') REPLY=value vals='@files' ;;
    'engine create/--name') REPLY=value vals='' ;;
    'engine create/--size') REPLY=value vals='XX_SMALL_V1 X_SMALL_V1 SMALL_V1 MEDIUM_V1 LARGE_V1 X_LARGE_V1 XX_LARGE_V1 XXX_LARGE_V1' ;;
    'engine create/--min-replicas') REPLY=value vals='' ;;
    'engine create/--max-replicas') REPLY=value vals='' ;;
    'engine create/--max-concurrency') REPLY=value vals='' ;;
    'engine create/--auto-stop-delay') REPLY=value vals='' ;;
    'engine create/--queue-time-limit') REPLY=value vals='' ;;
    'engine create/--runtime-limit') REPLY=value vals='' ;;
    'engine create/--drain-time-limit') REPLY=value vals='' ;;
    'engine create/--description') REPLY=value vals='' ;;
    'engine create/--cloud-tag') REPLY=value vals='' ;;
    'engine update/--name') REPLY=value vals='' ;;
    'engine update/--size') REPLY=value vals='XX_SMALL_V1 X_SMALL_V1 SMALL_V1 MEDIUM_V1 LARGE_V1 X_LARGE_V1 XX_LARGE_V1 XXX_LARGE_V1' ;;
    'engine update/--min-replicas') REPLY=value vals='' ;;
    'engine update/--max-replicas') REPLY=value vals='' ;;
    'engine update/--max-concurrency') REPLY=value vals='' ;;
    'engine update/--auto-stop-delay') REPLY=value vals='' ;;
    'engine update/--queue-time-limit') REPLY=value vals='' ;;
    'engine update/--runtime-limit') REPLY=value vals='' ;;
    'engine update/--drain-time-limit') REPLY=value vals='' ;;
    'engine update/--description') REPLY=value vals='' ;;
    'engine update/--cloud-tag') REPLY=value vals='' ;;
    'engine rules/--file') REPLY=value vals='@files' ;;
    'pull/--dir') REPLY=value vals='@files' ;;
    'pull/--kinds') REPLY=value vals='' ;;
    'plan/--dir') REPLY=value vals='@files' ;;
    'plan/--map') REPLY=value vals='@files' ;;
    'plan/--out') REPLY=value vals='@files' ;;
    'apply/--dir') REPLY=value vals='@files' ;;
    'apply/--plan') REPLY=value vals='@files' ;;
    'apply/--map') REPLY=value vals='@files' ;;
    'apply/--concurrency') REPLY=value vals='' ;;
    'diff/-p'|'diff/--profile') REPLY=value vals='@profiles' ;;
    'diff/--map') REPLY=value vals='@files' ;;
    'api/--data') REPLY=value vals='' ;;
    'mcp/-p'|'mcp/--profile') REPLY=value vals='@profiles' ;;
    'mcp/--allow-path') REPLY=value vals='' ;;
    'mcp/--max-result-bytes') REPLY=value vals='' ;;
    'agents install/--scope') REPLY=value vals='user project' ;;
    'agents install/-p'|'agents install/--profile') REPLY=value vals='@profiles' ;;
    'agents install/--allow-path') REPLY=value vals='' ;;
    'agents install/--max-result-bytes') REPLY=value vals='' ;;
    'agents install/--command') REPLY=value vals='' ;;
    'agents uninstall/--scope') REPLY=value vals='user project' ;;
    *)
      case "$2" in
        '-p'|'--profile') REPLY=value vals='@profiles' ;;
        '--parallel') REPLY=value vals='' ;;
        '--url') REPLY=value vals='' ;;
        '--auth-url') REPLY=value vals='' ;;
        '-o'|'--output') REPLY=value vals='table json ndjson csv' ;;
        '--query') REPLY=value vals='' ;;
        '--timeout') REPLY=value vals='' ;;
        '--ca-file') REPLY=value vals='@files' ;;
        '--edition') REPLY=value vals='software cloud' ;;
        '--project-id') REPLY=value vals='' ;;
        '--flight-url') REPLY=value vals='' ;;
        *) return 1 ;;
      esac
      ;;
  esac
}

# $1: command path, $2: index of the positional argument. REPLY: its values.
_dlake_arg() {
  case "$1/$2" in
    'token exchange help/'0) REPLY='client-credentials jwt pat' ;;
    'token help/'0) REPLY='exchange' ;;
    'profile show/'0) REPLY='@profiles' ;;
    'profile use/'0) REPLY='@profiles' ;;
    'profile set/'0) REPLY='@profiles' ;;
    'profile delete/'0) REPLY='@profiles' ;;
    'profile help/'0) REPLY='list show use set delete' ;;
    'catalog help/'0) REPLY='ls get tree create update delete refresh tags wiki grants lineage' ;;
    'source help/'0) REPLY='list get types create update delete' ;;
    'job help/'0) REPLY='list get why profile wait cancel results export' ;;
    'reflection help/'0) REPLY='list get create update delete refresh summary' ;;
    'user help/'0) REPLY='list create get update delete' ;;
    'role help/'0) REPLY='list get create update delete add-member remove-member' ;;
    'access help/'0) REPLY='why' ;;
    'pat help/'0) REPLY='list create delete' ;;
    'queue help/'0) REPLY='list get create update delete rules' ;;
    'project help/'0) REPLY='list get' ;;
    'engine help/'0) REPLY='list get create update delete enable disable rules' ;;
    'agents help/'0) REPLY='install uninstall list' ;;
    'completion/'0) REPLY='bash zsh fish' ;;
    'help/'0) REPLY='login logout whoami doctor token profile catalog source sql job top search reflection user role access pat queue project engine pull plan apply diff api version describe mcp agents completion' ;;
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
    w=${COMP_WORDS[i]}
    if (( !dashdash )) && [[ $w == -?* ]]; then
      if [[ $w == -- ]]; then
        dashdash=1
      elif [[ $w != *=* && ${COMP_WORDS[i+1]} == = ]]; then
        (( i += 2 )) # --opt=value, split at '=' by COMP_WORDBREAKS
      elif _dlake_opt "$cmd" "$w"; then
        # A required value is the next word; an optional one only when it is not an option.
        if [[ $REPLY == value || ${COMP_WORDS[i+1]} != -* ]]; then (( i++ )); fi
      fi
    elif (( pos == 0 )) && _dlake_sub "$cmd" "$w"; then
      cmd=${cmd:+$cmd }$REPLY
    else
      (( pos++ ))
    fi
    (( i++ ))
  done

  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  # The value of an option: "-o <Tab>", "--output=<Tab>" (split or not at '=').
  if (( !dashdash )); then
    if [[ $cur == = && $prev == -?* ]]; then
      opt=$prev cur=''
    elif [[ $prev == = ]] && (( COMP_CWORD > 2 )) && [[ ${COMP_WORDS[COMP_CWORD-2]} == -?* ]]; then
      opt=${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $cur == -?*=* ]]; then
      opt=${cur%%=*} before=${cur%%=*}= cur=${cur#*=}
    elif (( COMP_CWORD > 1 )) && [[ $prev == -?* && $prev != *=* ]]; then
      opt=$prev
    fi
    if [[ -n $opt ]] && _dlake_opt "$cmd" "$opt" && [[ $REPLY == value || -n $vals ]]; then
      _dlake_add "$vals" "$cur" "$before"
      return 0
    fi
    cur=${COMP_WORDS[COMP_CWORD]}
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
    (( ${#COMPREPLY[@]} )) || _dlake_add "$more" "$cur"
  else
    _dlake_arg "$cmd" "$pos"
    [[ -n $REPLY ]] && _dlake_add "$REPLY" "$cur"
  fi
  return 0
}

complete -F _dlake dlake
