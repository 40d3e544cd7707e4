# fish completion for dlake. Generated from the command tree by scripts/gen-completions.ts: do not edit.
#
# Install:  dlake completion fish > ~/.config/fish/completions/dlake.fish
# Profile names are read from the local config store when Tab is pressed (dlake completion --list-profiles).

# The subcommand a word names (aliases resolved); status 1 if none.
function __dlake_sub --argument-names cmd word
    switch "$cmd/$word"
        case '/login'
            echo 'login'
        case '/logout'
            echo 'logout'
        case '/whoami'
            echo 'whoami'
        case '/doctor'
            echo 'doctor'
        case '/token'
            echo 'token'
        case '/profile'
            echo 'profile'
        case '/catalog'
            echo 'catalog'
        case '/source'
            echo 'source'
        case '/sql'
            echo 'sql'
        case '/job'
            echo 'job'
        case '/top'
            echo 'top'
        case '/search'
            echo 'search'
        case '/reflection'
            echo 'reflection'
        case '/user'
            echo 'user'
        case '/role'
            echo 'role'
        case '/access'
            echo 'access'
        case '/pat'
            echo 'pat'
        case '/queue'
            echo 'queue'
        case '/project'
            echo 'project'
        case '/engine'
            echo 'engine'
        case '/pull'
            echo 'pull'
        case '/plan'
            echo 'plan'
        case '/apply'
            echo 'apply'
        case '/diff'
            echo 'diff'
        case '/api'
            echo 'api'
        case '/version'
            echo 'version'
        case '/describe'
            echo 'describe'
        case '/mcp'
            echo 'mcp'
        case '/agents'
            echo 'agents'
        case '/completion'
            echo 'completion'
        case '/help'
            echo 'help'
        case 'token/exchange'
            echo 'exchange'
        case 'token/help'
            echo 'help'
        case 'token exchange/client-credentials'
            echo 'client-credentials'
        case 'token exchange/jwt'
            echo 'jwt'
        case 'token exchange/pat'
            echo 'pat'
        case 'token exchange/help'
            echo 'help'
        case 'profile/list' 'profile/ls'
            echo 'list'
        case 'profile/show'
            echo 'show'
        case 'profile/use'
            echo 'use'
        case 'profile/set'
            echo 'set'
        case 'profile/delete' 'profile/rm'
            echo 'delete'
        case 'profile/help'
            echo 'help'
        case 'catalog/ls' 'catalog/list'
            echo 'ls'
        case 'catalog/get'
            echo 'get'
        case 'catalog/tree'
            echo 'tree'
        case 'catalog/create'
            echo 'create'
        case 'catalog/update'
            echo 'update'
        case 'catalog/delete' 'catalog/rm'
            echo 'delete'
        case 'catalog/refresh'
            echo 'refresh'
        case 'catalog/tags'
            echo 'tags'
        case 'catalog/wiki'
            echo 'wiki'
        case 'catalog/grants'
            echo 'grants'
        case 'catalog/lineage'
            echo 'lineage'
        case 'catalog/help'
            echo 'help'
        case 'source/list' 'source/ls'
            echo 'list'
        case 'source/get'
            echo 'get'
        case 'source/types'
            echo 'types'
        case 'source/create'
            echo 'create'
        case 'source/update'
            echo 'update'
        case 'source/delete' 'source/rm'
            echo 'delete'
        case 'source/help'
            echo 'help'
        case 'job/list' 'job/ls'
            echo 'list'
        case 'job/get'
            echo 'get'
        case 'job/why'
            echo 'why'
        case 'job/profile'
            echo 'profile'
        case 'job/wait'
            echo 'wait'
        case 'job/cancel'
            echo 'cancel'
        case 'job/results'
            echo 'results'
        case 'job/export'
            echo 'export'
        case 'job/help'
            echo 'help'
        case 'reflection/list' 'reflection/ls'
            echo 'list'
        case 'reflection/get'
            echo 'get'
        case 'reflection/create'
            echo 'create'
        case 'reflection/update'
            echo 'update'
        case 'reflection/delete' 'reflection/rm'
            echo 'delete'
        case 'reflection/refresh'
            echo 'refresh'
        case 'reflection/summary'
            echo 'summary'
        case 'reflection/help'
            echo 'help'
        case 'user/list' 'user/ls'
            echo 'list'
        case 'user/create'
            echo 'create'
        case 'user/get'
            echo 'get'
        case 'user/update'
            echo 'update'
        case 'user/delete' 'user/rm'
            echo 'delete'
        case 'user/help'
            echo 'help'
        case 'role/list' 'role/ls'
            echo 'list'
        case 'role/get'
            echo 'get'
        case 'role/create'
            echo 'create'
        case 'role/update'
            echo 'update'
        case 'role/delete' 'role/rm'
            echo 'delete'
        case 'role/add-member'
            echo 'add-member'
        case 'role/remove-member'
            echo 'remove-member'
        case 'role/help'
            echo 'help'
        case 'access/why'
            echo 'why'
        case 'access/help'
            echo 'help'
        case 'pat/list' 'pat/ls'
            echo 'list'
        case 'pat/create'
            echo 'create'
        case 'pat/delete' 'pat/revoke'
            echo 'delete'
        case 'pat/help'
            echo 'help'
        case 'queue/list' 'queue/ls'
            echo 'list'
        case 'queue/get'
            echo 'get'
        case 'queue/create'
            echo 'create'
        case 'queue/update'
            echo 'update'
        case 'queue/delete' 'queue/rm'
            echo 'delete'
        case 'queue/rules'
            echo 'rules'
        case 'queue/help'
            echo 'help'
        case 'project/list' 'project/ls'
            echo 'list'
        case 'project/get'
            echo 'get'
        case 'project/help'
            echo 'help'
        case 'engine/list' 'engine/ls'
            echo 'list'
        case 'engine/get'
            echo 'get'
        case 'engine/create'
            echo 'create'
        case 'engine/update'
            echo 'update'
        case 'engine/delete' 'engine/rm'
            echo 'delete'
        case 'engine/enable'
            echo 'enable'
        case 'engine/disable'
            echo 'disable'
        case 'engine/rules'
            echo 'rules'
        case 'engine/help'
            echo 'help'
        case 'agents/install'
            echo 'install'
        case 'agents/uninstall'
            echo 'uninstall'
        case 'agents/list' 'agents/ls'
            echo 'list'
        case 'agents/help'
            echo 'help'
        case '*'
            return 1
    end
end

# The subcommands of a command path; status 1 if none.
function __dlake_subs --argument-names cmd
    switch "$cmd"
        case ''
            printf '%s\t%s\n' 'login' 'Log in: store a session token (password login) or a personal access token for the profile' 'logout' 'Remove the profile\'s stored token (and end the session on the service)' 'whoami' 'Show the profile, URL, user, token kind and time left, and where each setting came from' 'doctor' 'Check each step between dlake and the service (config, DNS, TCP, TLS, the API, the clock, the login, Flight) and say how to fix the one that fails' 'token' 'Exchange credentials for an OAuth access token' 'profile' 'Manage connection profiles' 'catalog' 'Browse, read and write catalog entities (spaces, folders, datasets)' 'source' 'List, inspect, create and configure sources' 'sql' 'Run a SQL query or script, wait, and print the rows (or stream them to a file with --out); on a terminal, with no query, open the SQL shell' 'job' 'List, explain, profile, wait for, cancel and export SQL jobs' 'top' 'Show the running and queued jobs, refreshed; select one and cancel it' 'search' 'Search the catalog (and, where the server can, jobs and reflections) for TEXT' 'reflection' 'Create, change, refresh and summarize reflections (acceleration)' 'user' 'List, create, inspect, update and delete users' 'role' 'List, create, change and delete roles, and their members' 'access' 'Explain who may use an entity, and through which grants and roles' 'pat' 'List, create and revoke users\' personal access tokens' 'queue' 'Manage workload-management queues and the rules that place jobs on them' 'project' 'List and inspect the hosted edition\'s projects' 'engine' 'Manage hosted engines and the rules that route jobs to them' 'pull' 'Write the definitions of spaces, folders, views, datasets and sources (with --kinds, also queues, the ruleset, reflections, grants, users and roles) to YAML files' 'plan' 'Show what apply would change to make the service match the definition files' 'apply' 'Create and update entities so that the service matches the definition files' 'diff' 'Show what differs between two estates, as the plan that would turn the first into the second (exit 1 when they differ)' 'api' 'Make an authenticated request to the service and print the response body' 'version' 'Print the version, the build and the Node.js that runs it (as --version does)' 'describe' 'Print the commands, their arguments, options and examples, the global options and the exit codes, as data (-o json) or text' 'mcp' 'Serve dlake to an AI agent as a Model Context Protocol server on standard input and output (read-only unless --allow-writes)' 'agents' 'Register dlake mcp and a dlake skill with the AI agent hosts on this machine' 'completion' 'Print a shell completion script (bash, zsh, fish)' 'help' 'show help for a command'
        case 'token'
            printf '%s\t%s\n' 'exchange' 'Get an access token from the token endpoint (<auth-url>/oauth/token) and store it'
        case 'token exchange'
            printf '%s\t%s\n' 'client-credentials' 'OAuth client credentials of a service user; stores the access token and its refresh token' 'jwt' 'Exchange an external identity provider\'s JWT (with --audience: for a service user)' 'pat' 'Exchange a personal access token for a short-lived access token (default: the profile\'s stored PAT)'
        case 'profile'
            printf '%s\t%s\n' 'list' 'List profiles (the current one is marked with *)' 'show' 'Show a profile (default: the one in force) and its stored token, without secrets' 'use' 'Make a profile the current one' 'set' 'Create or change a profile: takes the global --url, --auth-url, --edition, --project-id, --flight-url and -o values' 'delete' 'Delete a profile and its stored token (asks first on a terminal)'
        case 'catalog'
            printf '%s\t%s\n' 'ls' 'List the top-level containers, or the children of REF (all pages)' 'get' 'Show a catalog entity in full' 'tree' 'Show containers and datasets as a tree, listing containers concurrently' 'create' 'Create a space, folder, view or source from JSON; a PHYSICAL_DATASET promotes a file or folder' 'update' 'Change an entity: the file\'s fields are merged into the current entity and sent with its tag' 'delete' 'Delete an entity (a space or folder with all its contents; a promoted table reverts to its file)' 'refresh' 'Refresh the reflections that depend on a physical dataset' 'tags' 'Show the tags of a source, space or dataset, or replace them (sending the current version)' 'wiki' 'Show the wiki text of an entity, or replace it (sending the current version)' 'grants' 'Show the privileges users and roles hold on an entity, or change them (Enterprise)' 'lineage' 'Show the datasets a dataset reads (parents), those that read it (children), and their sources'
        case 'source'
            printf '%s\t%s\n' 'list' 'List the sources with their type and health' 'get' 'Show a source and its config (secrets as the service shows them, never their values)' 'types' 'List the source types, or the config fields of one type' 'create' 'Create a source; its config is checked against the type before it is sent' 'update' 'Change a source config; secrets you leave out keep their stored values' 'delete' 'Delete a source'
        case 'job'
            printf '%s\t%s\n' 'list' 'List jobs of the history, newest first; every filter is applied by the service' 'get' 'Show a job\'s state, times, row count, error and the reflections it chose, matched or considered' 'why' 'Explain a job: where its time went, the queue, rule or engine, the reflections it considered, matched and chose, rows, bytes and its error' 'profile' 'Summarise a job\'s query profile (phases, top operators, spills, reflections) or save it with --out' 'wait' 'Wait until a job ends; exit 6 if it FAILED or was CANCELED' 'cancel' 'Ask the service to cancel a running job' 'results' 'Print a page of a completed job\'s rows (at most 500), or all of them with --all' 'export' 'Stream every row of a job\'s result to a file (waits for the job first)'
        case 'reflection'
            printf '%s\t%s\n' 'list' 'List reflections: all of them, or a dataset\'s (REF: its path or id)' 'get' 'Show a reflection: its fields, status and size' 'create' 'Create a reflection on a dataset; field names are checked against the dataset\'s schema first' 'update' 'Change a reflection: the field lists given replace those lists, everything else is kept' 'delete' 'Delete a reflection (asks first on a terminal)' 'refresh' 'Refresh a reflection now; --wait until it can accelerate (exit 6 if it fails)' 'summary' 'List reflections with their dataset, status and how often queries chose, matched or considered them'
        case 'user'
            printf '%s\t%s\n' 'list' 'List users (all of them, or those a filter expression matches); needs the Enterprise edition' 'create' 'Create a user; the PUBLIC role is always given, --role adds others' 'get' 'Show a user by id (a UUID) or by name (case-insensitive)' 'update' 'Change a user\'s names, email or roles; everything not given stays as it is' 'delete' 'Delete a user (asks first on a terminal); needs the Enterprise edition'
        case 'role'
            printf '%s\t%s\n' 'list' 'List roles with their type, member count and description' 'get' 'Show a role by id (a UUID) or by name (case-insensitive), with its member count' 'create' 'Create a role (its name is unique and cannot be changed later)' 'update' 'Change a role\'s description; the roles it is a member of are kept' 'delete' 'Delete a role (asks first on a terminal); its members lose it. System roles cannot be deleted' 'add-member' 'Make users and roles members of a role' 'remove-member' 'Take users and roles out of a role'
        case 'access'
            printf '%s\t%s\n' 'why' 'Explain which grants give a user or role its privileges on an entity, and what it lacks (Enterprise)'
        case 'pat'
            printf '%s\t%s\n' 'list' 'List a user\'s personal access tokens (ids, labels and dates; never the tokens)' 'create' 'Create a personal access token for a user and print it, once, alone on stdout' 'delete' 'Revoke one of a user\'s personal access tokens, or all of them with --all (asks first)'
        case 'queue'
            printf '%s\t%s\n' 'list' 'List the workload queues and their limits' 'get' 'Show a queue by id (a UUID) or by name' 'create' 'Create a queue; limits not given are left unset (CPU tier: the service default, MEDIUM)' 'update' 'Change a queue\'s limits or name; everything not given stays as it is' 'delete' 'Delete a queue (asks first on a terminal); rules must not place jobs in it' 'rules' 'Print the rules that place jobs on queues, in priority order, or replace them all from a file (--file)'
        case 'project'
            printf '%s\t%s\n' 'list' 'List the projects of the organisation (hosted edition)' 'get' 'Show a project by id (a UUID) or by name (hosted edition)'
        case 'engine'
            printf '%s\t%s\n' 'list' 'List the project\'s engines' 'get' 'Show an engine by id (a UUID) or by name' 'create' 'Create an engine; what is not given takes the service default' 'update' 'Change an engine\'s settings or name; everything not given stays as it is' 'delete' 'Delete an engine (asks first on a terminal); rules must not route jobs to it' 'enable' 'Enable an engine' 'disable' 'Disable an engine: it takes no new jobs' 'rules' 'Print the rules that route jobs to engines, in priority order, or replace them all from a file (--file)'
        case 'agents'
            printf '%s\t%s\n' 'install' 'Register dlake mcp with each agent host found (or those named: claude-code, codex, cursor, vscode, gemini, goose, copilot) and write a skill for those that read skills' 'uninstall' 'Remove exactly what dlake agents install wrote: its MCP entries and skills, nothing else' 'list' 'Show the agent hosts, whether each is found here, and what is registered in each scope'
        case '*'
            return 1
    end
end

# Aliases, offered when no subcommand matches the typed prefix.
function __dlake_more --argument-names cmd
    switch "$cmd"
        case ''
            true
        case 'token'
            printf '%s\t%s\n' 'help' 'show help for a command'
        case 'token exchange'
            printf '%s\t%s\n' 'help' 'show help for a command'
        case 'profile'
            printf '%s\t%s\n' 'ls' 'List profiles (the current one is marked with *)' 'rm' 'Delete a profile and its stored token (asks first on a terminal)' 'help' 'show help for a command'
        case 'catalog'
            printf '%s\t%s\n' 'list' 'List the top-level containers, or the children of REF (all pages)' 'rm' 'Delete an entity (a space or folder with all its contents; a promoted table reverts to its file)' 'help' 'show help for a command'
        case 'source'
            printf '%s\t%s\n' 'ls' 'List the sources with their type and health' 'rm' 'Delete a source' 'help' 'show help for a command'
        case 'job'
            printf '%s\t%s\n' 'ls' 'List jobs of the history, newest first; every filter is applied by the service' 'help' 'show help for a command'
        case 'reflection'
            printf '%s\t%s\n' 'ls' 'List reflections: all of them, or a dataset\'s (REF: its path or id)' 'rm' 'Delete a reflection (asks first on a terminal)' 'help' 'show help for a command'
        case 'user'
            printf '%s\t%s\n' 'ls' 'List users (all of them, or those a filter expression matches); needs the Enterprise edition' 'rm' 'Delete a user (asks first on a terminal); needs the Enterprise edition' 'help' 'show help for a command'
        case 'role'
            printf '%s\t%s\n' 'ls' 'List roles with their type, member count and description' 'rm' 'Delete a role (asks first on a terminal); its members lose it. System roles cannot be deleted' 'help' 'show help for a command'
        case 'access'
            printf '%s\t%s\n' 'help' 'show help for a command'
        case 'pat'
            printf '%s\t%s\n' 'ls' 'List a user\'s personal access tokens (ids, labels and dates; never the tokens)' 'revoke' 'Revoke one of a user\'s personal access tokens, or all of them with --all (asks first)' 'help' 'show help for a command'
        case 'queue'
            printf '%s\t%s\n' 'ls' 'List the workload queues and their limits' 'rm' 'Delete a queue (asks first on a terminal); rules must not place jobs in it' 'help' 'show help for a command'
        case 'project'
            printf '%s\t%s\n' 'ls' 'List the projects of the organisation (hosted edition)' 'help' 'show help for a command'
        case 'engine'
            printf '%s\t%s\n' 'ls' 'List the project\'s engines' 'rm' 'Delete an engine (asks first on a terminal); rules must not route jobs to it' 'help' 'show help for a command'
        case 'agents'
            printf '%s\t%s\n' 'ls' 'Show the agent hosts, whether each is found here, and what is registered in each scope' 'help' 'show help for a command'
        case '*'
            return 1
    end
end

# The options of a command itself.
function __dlake_opts --argument-names cmd
    switch "$cmd"
        case ''
            printf '%s\t%s\n' '-V' 'print the version and build' '--version' 'print the version and build' '-p' 'profile to use (env: DLAKE_PROFILE); commands that only read take several: -p a -p b, -p a,b, -p "prod-*"' '--profile' 'profile to use (env: DLAKE_PROFILE); commands that only read take several: -p a -p b, -p a,b, -p "prod-*"' '--parallel' 'with several profiles: how many run at once (default 4)' '--url' 'service base URL (env: DLAKE_URL)' '--auth-url' 'base URL of the token endpoint (env: DLAKE_AUTH_URL)' '-o' 'output format' '--output' 'output format' '--json' 'shorthand for -o json' '--query' 'filter the JSON result with a JMESPath expression' '-q' 'print data and errors only' '--quiet' 'print data and errors only' '-v' 'print more detail (e.g. the service\'s moreInfo)' '--verbose' 'print more detail (e.g. the service\'s moreInfo)' '--debug' 'trace HTTP exchanges on stderr, secrets redacted (env: DLAKE_DEBUG=1)' '--no-color' 'disable colour (also NO_COLOR)' '--timeout' 'per-request timeout, e.g. 30s (env: DLAKE_TIMEOUT)' '--ca-file' 'extra trusted CA certificates, PEM (env: DLAKE_CA_FILE)' '--insecure' 'skip TLS certificate verification (prints a warning)' '--edition' 'service edition: software or cloud (env: DLAKE_EDITION)' '--project-id' 'the hosted edition\'s project (env: DLAKE_PROJECT_ID)' '--flight-url' 'Arrow Flight endpoint of exports, grpc[+tls]://HOST:PORT (env: DLAKE_FLIGHT_URL)' '-h' 'show help' '--help' 'show help'
        case 'login'
            printf '%s\t%s\n' '-u' 'user name (default: the profile\'s, else prompted)' '--username' 'user name (default: the profile\'s, else prompted)' '--password-stdin' 'read the password from standard input' '--token-stdin' 'read a personal access token (PAT) from standard input instead' '--credential-store' 'where the token\'s secrets go: the OS credential store (keyring), the 0600 file (file), or the store when one answers (auto) (default: DLAKE_CREDENTIAL_STORE, else auto)' '-h' 'show help' '--help' 'show help'
        case 'logout'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'whoami'
            printf '%s\t%s\n' '--check' 'also call the service to prove the credentials work (exit 3 if they do not)' '-h' 'show help' '--help' 'show help'
        case 'doctor'
            printf '%s\t%s\n' '--bundle' 'also write a support bundle, FILE.tar.gz, over the API alone (MANIFEST.json lists what it holds)' '--jobs' 'the bundle\'s most recent failed jobs, with their profiles (default 5)' '--since' 'the bundle\'s slice of the job history (default 24h)' '-h' 'show help' '--help' 'show help'
        case 'token'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'token exchange'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'token exchange client-credentials'
            printf '%s\t%s\n' '--client-id' 'client id of the service user (default: DLAKE_CLIENT_ID)' '--client-secret-stdin' 'read the client secret from standard input (default: DLAKE_CLIENT_SECRET, else a prompt)' '--print' 'also write the access token alone to stdout' '--credential-store' 'where the token\'s secrets go: the OS credential store (keyring), the 0600 file (file), or the store when one answers (auto) (default: DLAKE_CREDENTIAL_STORE, else auto)' '-h' 'show help' '--help' 'show help'
        case 'token exchange jwt'
            printf '%s\t%s\n' '--subject-token-file' 'read the JWT from this file' '--subject-token-stdin' 'read the JWT from standard input' '--audience' 'credential identifier of a service user (//host/organizations/…/credentials/…)' '--print' 'also write the access token alone to stdout' '--credential-store' 'where the token\'s secrets go: the OS credential store (keyring), the 0600 file (file), or the store when one answers (auto) (default: DLAKE_CREDENTIAL_STORE, else auto)' '-h' 'show help' '--help' 'show help'
        case 'token exchange pat'
            printf '%s\t%s\n' '--subject-token-stdin' 'read the PAT from standard input' '--print' 'also write the access token alone to stdout' '--credential-store' 'where the token\'s secrets go: the OS credential store (keyring), the 0600 file (file), or the store when one answers (auto) (default: DLAKE_CREDENTIAL_STORE, else auto)' '-h' 'show help' '--help' 'show help'
        case 'token exchange help'
            true
        case 'token help'
            true
        case 'profile'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'profile list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'profile show'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'profile use'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'profile set'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'profile delete'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '-h' 'show help' '--help' 'show help'
        case 'profile help'
            true
        case 'catalog'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'catalog ls'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--page-size' 'children per listing request (default 500)' '-h' 'show help' '--help' 'show help'
        case 'catalog get'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--include' 'add a non-default attribute, e.g. permissions (repeatable)' '--exclude' 'drop an attribute, e.g. children (repeatable)' '-h' 'show help' '--help' 'show help'
        case 'catalog tree'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--depth' 'levels to show (default: all)' '--concurrency' 'listing requests at once (default 8, at most 32)' '--page-size' 'children per listing request (default 500)' '-h' 'show help' '--help' 'show help'
        case 'catalog create'
            printf '%s\t%s\n' '--file' 'the entity as JSON; - reads standard input' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'catalog update'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--file' 'changed fields as JSON (a "tag" in it is sent as given); - reads standard input' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'catalog delete'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '-y' 'do not ask for confirmation' '--yes' 'do not ask for confirmation' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'catalog refresh'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'catalog tags'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--set' 'the new tags, replacing the current ones (repeatable)' '--clear' 'remove all tags' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'catalog wiki'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--set-file' 'the new text (Markdown); - reads standard input' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'catalog grants'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--grant' 'give privileges: user:NAME:PRIV,… or role:NAME:PRIV,… (repeatable)' '--revoke' 'take privileges away, same form (repeatable)' '--dry-run' 'print the request instead of sending it (the grants are still read)' '-h' 'show help' '--help' 'show help'
        case 'catalog lineage'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '-h' 'show help' '--help' 'show help'
        case 'catalog help'
            true
        case 'source'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'source list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'source get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'source types'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'source create'
            printf '%s\t%s\n' '--type' 'source type code (see: dlake source types)' '--config-file' 'config fields as a JSON object, secrets included; - reads standard input' '--set' 'a config field, coerced to its type (repeatable; not for secrets)' '--dry-run' 'print the request that would be sent, secrets redacted, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'source update'
            printf '%s\t%s\n' '--config-file' 'fields to change as a JSON object (null removes one); - reads standard input' '--set' 'a config field to change (repeatable; not for secrets)' '--dry-run' 'print the request that would be sent, secrets redacted, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'source delete'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation' '--yes' 'do not ask for confirmation' '--dry-run' 'print the request that would be sent, and send nothing' '-h' 'show help' '--help' 'show help'
        case 'source help'
            true
        case 'sql'
            printf '%s\t%s\n' '-c' 'the SQL text, as psql\'s -c takes it (instead of the argument)' '--command' 'the SQL text, as psql\'s -c takes it (instead of the argument)' '-f' 'run the statements of a script, separated by ; (- for standard input)' '--file' 'run the statements of a script, separated by ; (- for standard input)' '--continue-on-error' 'with several statements: run every one, then exit with the first failure\'s code' '--context' 'catalog path that unqualified names resolve in, e.g. Sales/curated' '--no-wait' 'print the job id and return without waiting' '--max-rows' 'print at most N rows (default: 100 in a table, all rows in json, ndjson and csv)' '--out' 'stream every row to FILE (- for standard output) instead of printing them' '--read-only' 'run only statements that read, judged as dlake mcp judges them; any other is refused before anything is sent' '--into' 'write the result on the service as a new table REF (CREATE TABLE REF AS QUERY), e.g. Lake/exports/orders' '--format' 'csv, json, ndjson or parquet (default: from the file name, else csv; a further .gz gzips)' '--no-clobber' 'refuse (exit 2) rather than replace a FILE that exists' '--concurrency' 'results pages fetched at once (default 4, at most 32)' '--transport' 'auto (Arrow Flight when an endpoint is configured and answers, else REST), flight or rest' '--wait-timeout' 'stop waiting for the job after this long, e.g. 10m (exit 7; the job keeps running)' '-y' 'on Ctrl-C while waiting, cancel the job without asking' '--yes' 'on Ctrl-C while waiting, cancel the job without asking' '-h' 'show help' '--help' 'show help'
        case 'job'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'job list'
            printf '%s\t%s\n' '--status' 'only jobs in this state (COMPLETED, FAILED, CANCELED, RUNNING…); repeatable or comma-separated' '--user' 'only this user\'s jobs' '--since' 'submitted at or after WHEN: a duration back from now (24h, 7d) or an ISO 8601 time' '--until' 'submitted before WHEN (same forms as --since)' '--type' 'only jobs of this query type (UI_RUN, REST, JDBC, ODBC, FLIGHT…)' '--queue' 'only jobs placed on this queue' '--engine' 'only jobs run on this engine' '--min-duration' 'only jobs that took at least this long, e.g. 30s' '--text' 'only jobs whose SQL contains this text (case-insensitive)' '--accelerated' 'only jobs a reflection accelerated' '--not-accelerated' 'only jobs no reflection accelerated' '--limit' 'jobs to list (default 50, at most 10000)' '--wide' 'on a terminal too, every column and whole job ids (as a pipe or a file gets them)' '--no-pager' 'on a terminal, print a table taller than the screen instead of paging it (DLAKE_PAGER, PAGER, less)' '--out' 'write the jobs to FILE (- for standard output) in the format of its name' '--format' 'csv, json, ndjson or parquet (default: from the file name, else csv; a further .gz gzips)' '--wait-timeout' 'stop waiting for the job after this long, e.g. 10m (exit 7; the job keeps running)' '-h' 'show help' '--help' 'show help'
        case 'job get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'job why'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'job profile'
            printf '%s\t%s\n' '--out' 'save the profile zip as downloaded, instead of summarising it' '--top' 'operators to show, by processing time (default 10)' '-h' 'show help' '--help' 'show help'
        case 'job wait'
            printf '%s\t%s\n' '--timeout' 'stop waiting after this long, e.g. 10m (exit 7; the job keeps running)' '--wait-timeout' 'the same as --timeout' '-y' 'on Ctrl-C, cancel the job without asking' '--yes' 'on Ctrl-C, cancel the job without asking' '-h' 'show help' '--help' 'show help'
        case 'job cancel'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation' '--yes' 'do not ask for confirmation' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'job results'
            printf '%s\t%s\n' '--offset' 'first row to print (default 0)' '--limit' 'rows to print (default 100, at most 500)' '--all' 'print every row, fetching page after page' '--concurrency' 'pages fetched with --all at once (default 4, at most 32)' '-h' 'show help' '--help' 'show help'
        case 'job export'
            printf '%s\t%s\n' '--out' 'file to write (- for standard output); written as FILE.partial, then renamed' '--format' 'csv, json, ndjson or parquet (default: from the file name, else csv; a further .gz gzips)' '--no-clobber' 'refuse (exit 2) rather than replace a FILE that exists' '--concurrency' 'results pages fetched at once (default 4, at most 32)' '--wait-timeout' 'stop waiting for the job after this long, e.g. 10m (exit 7; the job keeps running)' '--transport' 'auto (Arrow Flight when an endpoint is configured and answers, else REST), flight or rest' '--resume' 'continue an interrupted export from the complete rows of FILE.partial' '-y' 'on Ctrl-C while waiting, cancel the job without asking' '--yes' 'on Ctrl-C while waiting, cancel the job without asking' '-h' 'show help' '--help' 'show help'
        case 'job help'
            true
        case 'top'
            printf '%s\t%s\n' '--interval' 'time between refreshes (default 2s)' '--once' 'print one snapshot and exit (also when standard output is not a terminal)' '-h' 'show help' '--help' 'show help'
        case 'search'
            printf '%s\t%s\n' '--type' 'only results of this kind (table, view, folder, space, source, udf, job, reflection); repeatable or comma-separated' '--limit' 'results to show (default 50, at most 10000)' '-h' 'show help' '--help' 'show help'
        case 'reflection'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'reflection list'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '-h' 'show help' '--help' 'show help'
        case 'reflection get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'reflection create'
            printf '%s\t%s\n' '--type' 'raw or aggregation' '--id' 'take REF as an id, even when it is not a UUID' '--disabled' 'create it disabled (no refresh until enabled)' '--name' 'the reflection name' '--display' 'display fields F,… (raw reflections)' '--dimension' 'dimensions F[:DATE],… (aggregation)' '--measure' 'measures F[:SUM|COUNT|MIN|MAX|APPROX_COUNT_DISTINCT],… (aggregation)' '--partition' 'partition fields F,…' '--sort' 'sort fields F,…' '--distribution' 'distribution fields F,…' '--dry-run' 'print the request instead of sending it (the dataset is still read)' '-h' 'show help' '--help' 'show help'
        case 'reflection update'
            printf '%s\t%s\n' '--enable' 'enable it (starts a refresh)' '--disable' 'disable it' '--name' 'the reflection name' '--display' 'display fields F,… (raw reflections)' '--dimension' 'dimensions F[:DATE],… (aggregation)' '--measure' 'measures F[:SUM|COUNT|MIN|MAX|APPROX_COUNT_DISTINCT],… (aggregation)' '--partition' 'partition fields F,…' '--sort' 'sort fields F,…' '--distribution' 'distribution fields F,…' '--dry-run' 'print the request instead of sending it (the dataset is still read)' '-h' 'show help' '--help' 'show help'
        case 'reflection delete'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'reflection refresh'
            printf '%s\t%s\n' '--wait' 'wait until the reflection can accelerate or has failed' '--timeout' 'with --wait: stop waiting after this long, e.g. 10m (exit 7; the refresh goes on)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'reflection summary'
            printf '%s\t%s\n' '--filter' 'key=value (lists comma-separated) or a JSON object; repeatable. Keys: reflectionType, refreshStatus, availabilityStatus, configStatus, enabledFlag, reflectionNameOrDatasetPath, reflectionIds' '--order-by' 'reflectionName, datasetName or reflectionType; prefix - for descending' '--limit' 'show at most N reflections (default: all)' '-h' 'show help' '--help' 'show help'
        case 'reflection help'
            true
        case 'user'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'user list'
            printf '%s\t%s\n' '--filter' 'the service\'s filter: fields id, name, firstName, lastName, email, identityType; ==, startsWith(), contains(), && and ||, e.g. "startsWith(name,\'etl\')"' '-h' 'show help' '--help' 'show help'
        case 'user create'
            printf '%s\t%s\n' '--first-name' 'first name' '--last-name' 'last name' '--email' 'email address' '--role' 'a role besides PUBLIC (repeatable)' '--password-stdin' 'read a new password for the user from standard input (a local user; never on the command line)' '--password-prompt' 'ask for a new password on the terminal, hidden, twice' '--dry-run' 'print the request instead of sending it (role names are still looked up)' '-h' 'show help' '--help' 'show help'
        case 'user get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'user update'
            printf '%s\t%s\n' '--first-name' 'new first name' '--last-name' 'new last name' '--email' 'new email address' '--add-role' 'give the user this role (repeatable)' '--remove-role' 'take this role away (repeatable; PUBLIC stays)' '--password-stdin' 'read a new password for the user from standard input (a local user; never on the command line)' '--password-prompt' 'ask for a new password on the terminal, hidden, twice' '--dry-run' 'print the request instead of sending it (the user is still read)' '-h' 'show help' '--help' 'show help'
        case 'user delete'
            printf '%s\t%s\n' '--version' 'the user\'s tag, to delete only that version (default: read it first)' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'user help'
            true
        case 'role'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'role list'
            printf '%s\t%s\n' '--filter' 'the service\'s filter: fields id, name, type, e.g. "type==\'INTERNAL\'"' '-h' 'show help' '--help' 'show help'
        case 'role get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'role create'
            printf '%s\t%s\n' '--description' 'what the role is for' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'role update'
            printf '%s\t%s\n' '--description' 'new description ("" removes it)' '--dry-run' 'print the request instead of sending it (the role is still read)' '-h' 'show help' '--help' 'show help'
        case 'role delete'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'role add-member'
            printf '%s\t%s\n' '--user' 'a user, by name or id (repeatable)' '--role' 'a role, by name or id (repeatable)' '--dry-run' 'print the request instead of sending it (names are still looked up)' '-h' 'show help' '--help' 'show help'
        case 'role remove-member'
            printf '%s\t%s\n' '--user' 'a user, by name or id (repeatable)' '--role' 'a role, by name or id (repeatable)' '--dry-run' 'print the request instead of sending it (names are still looked up)' '-h' 'show help' '--help' 'show help'
        case 'role help'
            true
        case 'access'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'access why'
            printf '%s\t%s\n' '--id' 'take REF as an id, even when it is not a UUID' '--privilege' 'answer with the exit code: 0 when it is held, 1 when it is not' '-h' 'show help' '--help' 'show help'
        case 'access help'
            true
        case 'pat'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'pat list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'pat create'
            printf '%s\t%s\n' '--label' 'what the token is for' '--expires' 'lifetime, e.g. 30d, 12h (at most 180d)' '--dry-run' 'print the request instead of sending it (the user is still looked up)' '-h' 'show help' '--help' 'show help'
        case 'pat delete'
            printf '%s\t%s\n' '--all' 'revoke every token of the user' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '--dry-run' 'print the request instead of sending it (the user is still looked up)' '-h' 'show help' '--help' 'show help'
        case 'pat help'
            true
        case 'queue'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'queue list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'queue get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'queue create'
            printf '%s\t%s\n' '--name' 'queue name (unique)' '--cpu-tier' 'CPU priority of its jobs' '--max-memory-per-node' 'memory per node for all its jobs, e.g. 8GiB, 512MiB' '--max-query-memory-per-node' 'memory per node for one job, e.g. 2GiB' '--max-running-jobs' 'jobs that may run at once' '--max-start-timeout' 'longest wait in the queue, e.g. 90s, 5m' '--max-run-timeout' 'longest run time of a job, e.g. 15m, 2h' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'queue update'
            printf '%s\t%s\n' '--name' 'new name' '--cpu-tier' 'CPU priority of its jobs' '--max-memory-per-node' 'memory per node for all its jobs, e.g. 8GiB, 512MiB' '--max-query-memory-per-node' 'memory per node for one job, e.g. 2GiB' '--max-running-jobs' 'jobs that may run at once' '--max-start-timeout' 'longest wait in the queue, e.g. 90s, 5m' '--max-run-timeout' 'longest run time of a job, e.g. 15m, 2h' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'queue delete'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'queue rules'
            printf '%s\t%s\n' '--file' 'replace the ruleset with the JSON object {tag, rules, defaultRule} in FILE (- for stdin)' '--dry-run' 'with --file: print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'queue help'
            true
        case 'project'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'project list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'project get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'project help'
            true
        case 'engine'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'engine list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'engine get'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'engine create'
            printf '%s\t%s\n' '--name' 'engine name (unique in the project)' '--size' 'size of each replica' '--min-replicas' 'replicas kept running' '--max-replicas' 'replicas it may grow to' '--max-concurrency' 'jobs one replica runs at once' '--auto-stop-delay' 'idle time before a replica stops, e.g. 5m' '--queue-time-limit' 'longest wait of a job for a replica, e.g. 5m' '--runtime-limit' 'longest run time of a job, e.g. 2h (0: none)' '--drain-time-limit' 'time a stopping replica may finish its jobs, e.g. 10m' '--description' 'description' '--cloud-tag' 'a cloud tag of its instances (repeatable)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'engine update'
            printf '%s\t%s\n' '--name' 'new name' '--size' 'size of each replica' '--min-replicas' 'replicas kept running' '--max-replicas' 'replicas it may grow to' '--max-concurrency' 'jobs one replica runs at once' '--auto-stop-delay' 'idle time before a replica stops, e.g. 5m' '--queue-time-limit' 'longest wait of a job for a replica, e.g. 5m' '--runtime-limit' 'longest run time of a job, e.g. 2h (0: none)' '--drain-time-limit' 'time a stopping replica may finish its jobs, e.g. 10m' '--description' 'description' '--cloud-tag' 'a cloud tag of its instances (repeatable)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'engine delete'
            printf '%s\t%s\n' '-y' 'do not ask for confirmation (needed without a terminal)' '--yes' 'do not ask for confirmation (needed without a terminal)' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'engine enable'
            printf '%s\t%s\n' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'engine disable'
            printf '%s\t%s\n' '--dry-run' 'print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'engine rules'
            printf '%s\t%s\n' '--file' 'replace the rule set with the JSON object {ruleInfos, ruleInfoDefault, tag} in FILE (- for stdin)' '--dry-run' 'with --file: print the request instead of sending it' '-h' 'show help' '--help' 'show help'
        case 'engine help'
            true
        case 'pull'
            printf '%s\t%s\n' '--dir' 'the folder of definition files (*.yaml)' '--kinds' 'also pull these kinds, comma-separated: queue, rule, reflection, grant, user, role (reflections and grants of the entities pulled)' '--prune' 'also remove the files of entities that no longer exist under what is pulled' '-h' 'show help' '--help' 'show help'
        case 'plan'
            printf '%s\t%s\n' '--dir' 'the folder of definition files (*.yaml)' '--prune' 'also delete what no file names under the files\' roots (see the README)' '--map' 'rename users and roles for this environment (YAML: users: {a: b}, roles: {…})' '--refresh-secrets' 'send the sources\' environment-variable secrets again, even when nothing else changed' '--out' 'also save the plan to FILE, for apply --plan (no secret value is saved)' '--exit-code' 'exit 8 when there are changes' '-h' 'show help' '--help' 'show help'
        case 'apply'
            printf '%s\t%s\n' '--dir' 'the folder of definition files (*.yaml)' '--plan' 'apply this saved plan (plan --out) exactly, instead of reading --dir' '--prune' 'also delete what no file names under the files\' roots (see the README)' '--map' 'rename users and roles for this environment (YAML: users: {a: b}, roles: {…})' '--refresh-secrets' 'send the sources\' environment-variable secrets again, even when nothing else changed' '--dry-run' 'print the plan and change nothing' '-y' 'delete (--prune) without asking; needed without a terminal' '--yes' 'delete (--prune) without asking; needed without a terminal' '--allow-breaking' 'with --prune: delete views and datasets even when views that remain read them (see the plan: ! breaks)' '--concurrency' 'writes at once (default 8, at most 32)' '-h' 'show help' '--help' 'show help'
        case 'diff'
            printf '%s\t%s\n' '-p' 'an estate: give two, -p A -p B' '--profile' 'an estate: give two, -p A -p B' '--map' 'rename A\'s users and roles as B names them (YAML: users: {a: b}, roles: {…})' '-h' 'show help' '--help' 'show help'
        case 'api'
            printf '%s\t%s\n' '--data' 'request body: JSON text, @FILE, or @- for standard input' '--paginate' 'follow nextPageToken and print one merged JSON document (GET only)' '-h' 'show help' '--help' 'show help'
        case 'version'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'describe'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'mcp'
            printf '%s\t%s\n' '-p' 'a profile the agent may use; repeatable, the first is the default (default: the current profile alone)' '--profile' 'a profile the agent may use; repeatable, the first is the default (default: the current profile alone)' '--allow-writes' 'let run_sql run statements that change data or the catalog' '--allow-path' 'only this space or folder (Sales, Sales.curated) for run_sql, get_entity, get_lineage and search_catalog; repeatable' '--max-result-bytes' 'cut each tool answer at this size, e.g. 1MB (default 200KB)' '-h' 'show help' '--help' 'show help'
        case 'agents'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'agents install'
            printf '%s\t%s\n' '--scope' 'user: for every project (default); project: files in this folder, to share' '-p' 'a profile the agent may use (passed to dlake mcp); repeatable, the first is the default' '--profile' 'a profile the agent may use (passed to dlake mcp); repeatable, the first is the default' '--allow-writes' 'let the agent run statements that change data (passed to dlake mcp)' '--allow-path' 'only this space or folder of the catalog for the agent (passed to dlake mcp); repeatable' '--max-result-bytes' 'cut each tool answer at this size (passed to dlake mcp)' '--command' 'how hosts start dlake (default: dlake, found on their PATH)' '--dry-run' 'print what would change and write nothing' '--force' 'replace an entry or skill named dlake that dlake did not write (a user\'s own)' '-h' 'show help' '--help' 'show help'
        case 'agents uninstall'
            printf '%s\t%s\n' '--scope' 'user: for every project (default); project: files in this folder, to share' '--dry-run' 'print what would change and write nothing' '--force' 'remove an entry or skill of dlake even if it was changed since dlake wrote it' '-h' 'show help' '--help' 'show help'
        case 'agents list'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'agents help'
            true
        case 'completion'
            printf '%s\t%s\n' '-h' 'show help' '--help' 'show help'
        case 'help'
            true
        case '*'
            return 1
    end
end

# The root's options, accepted after any subcommand too.
function __dlake_globals
    printf '%s\t%s\n' '-p' 'profile to use (env: DLAKE_PROFILE); commands that only read take several: -p a -p b, -p a,b, -p "prod-*"' '--profile' 'profile to use (env: DLAKE_PROFILE); commands that only read take several: -p a -p b, -p a,b, -p "prod-*"' '--parallel' 'with several profiles: how many run at once (default 4)' '--url' 'service base URL (env: DLAKE_URL)' '--auth-url' 'base URL of the token endpoint (env: DLAKE_AUTH_URL)' '-o' 'output format' '--output' 'output format' '--json' 'shorthand for -o json' '--query' 'filter the JSON result with a JMESPath expression' '-q' 'print data and errors only' '--quiet' 'print data and errors only' '-v' 'print more detail (e.g. the service\'s moreInfo)' '--verbose' 'print more detail (e.g. the service\'s moreInfo)' '--debug' 'trace HTTP exchanges on stderr, secrets redacted (env: DLAKE_DEBUG=1)' '--no-color' 'disable colour (also NO_COLOR)' '--timeout' 'per-request timeout, e.g. 30s (env: DLAKE_TIMEOUT)' '--ca-file' 'extra trusted CA certificates, PEM (env: DLAKE_CA_FILE)' '--insecure' 'skip TLS certificate verification (prints a warning)' '--edition' 'service edition: software or cloud (env: DLAKE_EDITION)' '--project-id' 'the hosted edition\'s project (env: DLAKE_PROJECT_ID)' '--flight-url' 'Arrow Flight endpoint of exports, grpc[+tls]://HOST:PORT (env: DLAKE_FLIGHT_URL)'
end

# For an option that takes a value: "value" or "optional", then its values (words, @profiles or @files).
# Nothing for an option that takes no value.
function __dlake_opt --argument-names cmd opt
    switch "$cmd/$opt"
        case 'login/-u' 'login/--username'
            printf '%s\n' value ''
            return
        case 'login/--password'
            printf '%s\n' value ''
            return
        case 'login/--token'
            printf '%s\n' value ''
            return
        case 'login/--credential-store'
            printf '%s\n' value 'auto keyring file'
            return
        case 'doctor/--bundle'
            printf '%s\n' value '@files'
            return
        case 'doctor/--jobs'
            printf '%s\n' value ''
            return
        case 'doctor/--since'
            printf '%s\n' value ''
            return
        case 'token exchange client-credentials/--client-id'
            printf '%s\n' value ''
            return
        case 'token exchange client-credentials/--client-secret'
            printf '%s\n' value ''
            return
        case 'token exchange client-credentials/--credential-store'
            printf '%s\n' value 'auto keyring file'
            return
        case 'token exchange jwt/--subject-token-file'
            printf '%s\n' value '@files'
            return
        case 'token exchange jwt/--subject-token'
            printf '%s\n' value ''
            return
        case 'token exchange jwt/--audience'
            printf '%s\n' value ''
            return
        case 'token exchange jwt/--credential-store'
            printf '%s\n' value 'auto keyring file'
            return
        case 'token exchange pat/--subject-token'
            printf '%s\n' value ''
            return
        case 'token exchange pat/--credential-store'
            printf '%s\n' value 'auto keyring file'
            return
        case 'catalog ls/--page-size'
            printf '%s\n' value ''
            return
        case 'catalog get/--include'
            printf '%s\n' value ''
            return
        case 'catalog get/--exclude'
            printf '%s\n' value ''
            return
        case 'catalog tree/--depth'
            printf '%s\n' value ''
            return
        case 'catalog tree/--concurrency'
            printf '%s\n' value ''
            return
        case 'catalog tree/--page-size'
            printf '%s\n' value ''
            return
        case 'catalog create/--file'
            printf '%s\n' value '@files'
            return
        case 'catalog update/--file'
            printf '%s\n' value '@files'
            return
        case 'catalog tags/--set'
            printf '%s\n' value ''
            return
        case 'catalog wiki/--set-file'
            printf '%s\n' value '@files'
            return
        case 'catalog grants/--grant'
            printf '%s\n' value ''
            return
        case 'catalog grants/--revoke'
            printf '%s\n' value ''
            return
        case 'source create/--type'
            printf '%s\n' value 'AMAZONELASTIC REDSHIFT S3 ADLS AZURE_STORAGE ELASTIC HDFS HIVE MAPRFS MSSQL MONGO MYSQL NAS ORACLE POSTGRES HBASE DB2'
            return
        case 'source create/--config-file'
            printf '%s\n' value '@files'
            return
        case 'source create/--set'
            printf '%s\n' value ''
            return
        case 'source update/--config-file'
            printf '%s\n' value '@files'
            return
        case 'source update/--set'
            printf '%s\n' value ''
            return
        case 'sql/-c' 'sql/--command'
            printf '%s\n' value ''
            return
        case 'sql/-f' 'sql/--file'
            printf '%s\n' value '@files'
            return
        case 'sql/--context'
            printf '%s\n' value ''
            return
        case 'sql/--max-rows'
            printf '%s\n' value ''
            return
        case 'sql/--out'
            printf '%s\n' value '@files'
            return
        case 'sql/--into'
            printf '%s\n' value ''
            return
        case 'sql/--format'
            printf '%s\n' value 'csv json ndjson parquet'
            return
        case 'sql/--concurrency'
            printf '%s\n' value ''
            return
        case 'sql/--transport'
            printf '%s\n' value 'auto flight rest'
            return
        case 'sql/--wait-timeout'
            printf '%s\n' value ''
            return
        case 'job list/--status'
            printf '%s\n' value ''
            return
        case 'job list/--user'
            printf '%s\n' value ''
            return
        case 'job list/--since'
            printf '%s\n' value ''
            return
        case 'job list/--until'
            printf '%s\n' value ''
            return
        case 'job list/--type'
            printf '%s\n' value ''
            return
        case 'job list/--queue'
            printf '%s\n' value ''
            return
        case 'job list/--engine'
            printf '%s\n' value ''
            return
        case 'job list/--min-duration'
            printf '%s\n' value ''
            return
        case 'job list/--text'
            printf '%s\n' value ''
            return
        case 'job list/--limit'
            printf '%s\n' value ''
            return
        case 'job list/--out'
            printf '%s\n' value '@files'
            return
        case 'job list/--format'
            printf '%s\n' value 'csv json ndjson parquet'
            return
        case 'job list/--wait-timeout'
            printf '%s\n' value ''
            return
        case 'job profile/--out'
            printf '%s\n' value '@files'
            return
        case 'job profile/--top'
            printf '%s\n' value ''
            return
        case 'job wait/--timeout'
            printf '%s\n' value ''
            return
        case 'job wait/--wait-timeout'
            printf '%s\n' value ''
            return
        case 'job results/--offset'
            printf '%s\n' value ''
            return
        case 'job results/--limit'
            printf '%s\n' value ''
            return
        case 'job results/--concurrency'
            printf '%s\n' value ''
            return
        case 'job export/--out'
            printf '%s\n' value '@files'
            return
        case 'job export/--format'
            printf '%s\n' value 'csv json ndjson parquet'
            return
        case 'job export/--concurrency'
            printf '%s\n' value ''
            return
        case 'job export/--wait-timeout'
            printf '%s\n' value ''
            return
        case 'job export/--transport'
            printf '%s\n' value 'auto flight rest'
            return
        case 'top/--interval'
            printf '%s\n' value ''
            return
        case 'search/--type'
            printf '%s\n' value ''
            return
        case 'search/--limit'
            printf '%s\n' value ''
            return
        case 'reflection create/--type'
            printf '%s\n' value 'raw aggregation'
            return
        case 'reflection create/--name'
            printf '%s\n' value ''
            return
        case 'reflection create/--display'
            printf '%s\n' value ''
            return
        case 'reflection create/--dimension'
            printf '%s\n' value ''
            return
        case 'reflection create/--measure'
            printf '%s\n' value ''
            return
        case 'reflection create/--partition'
            printf '%s\n' value ''
            return
        case 'reflection create/--sort'
            printf '%s\n' value ''
            return
        case 'reflection create/--distribution'
            printf '%s\n' value ''
            return
        case 'reflection update/--name'
            printf '%s\n' value ''
            return
        case 'reflection update/--display'
            printf '%s\n' value ''
            return
        case 'reflection update/--dimension'
            printf '%s\n' value ''
            return
        case 'reflection update/--measure'
            printf '%s\n' value ''
            return
        case 'reflection update/--partition'
            printf '%s\n' value ''
            return
        case 'reflection update/--sort'
            printf '%s\n' value ''
            return
        case 'reflection update/--distribution'
            printf '%s\n' value ''
            return
        case 'reflection refresh/--timeout'
            printf '%s\n' value ''
            return
        case 'reflection summary/--filter'
            printf '%s\n' value ''
            return
        case 'reflection summary/--order-by'
            printf '%s\n' value 'reflectionName datasetName reflectionType -reflectionName -datasetName -reflectionType'
            return
        case 'reflection summary/--limit'
            printf '%s\n' value ''
            return
        case 'user list/--filter'
            printf '%s\n' value ''
            return
        case 'user create/--first-name'
            printf '%s\n' value ''
            return
        case 'user create/--last-name'
            printf '%s\n' value ''
            return
        case 'user create/--email'
            printf '%s\n' value ''
            return
        case 'user create/--role'
            printf '%s\n' value ''
            return
        case 'user create/--password'
            printf '%s\n' value ''
            return
        case 'user update/--first-name'
            printf '%s\n' value ''
            return
        case 'user update/--last-name'
            printf '%s\n' value ''
            return
        case 'user update/--email'
            printf '%s\n' value ''
            return
        case 'user update/--add-role'
            printf '%s\n' value ''
            return
        case 'user update/--remove-role'
            printf '%s\n' value ''
            return
        case 'user update/--password'
            printf '%s\n' value ''
            return
        case 'user delete/--version'
            printf '%s\n' value ''
            return
        case 'role list/--filter'
            printf '%s\n' value ''
            return
        case 'role create/--description'
            printf '%s\n' value ''
            return
        case 'role update/--description'
            printf '%s\n' value ''
            return
        case 'role add-member/--user'
            printf '%s\n' value ''
            return
        case 'role add-member/--role'
            printf '%s\n' value ''
            return
        case 'role remove-member/--user'
            printf '%s\n' value ''
            return
        case 'role remove-member/--role'
            printf '%s\n' value ''
            return
        case 'access why/--privilege'
            printf '%s\n' value ''
            return
        case 'pat create/--label'
            printf '%s\n' value ''
            return
        case 'pat create/--expires'
            printf '%s\n' value ''
            return
        case 'queue create/--name'
            printf '%s\n' value ''
            return
        case 'queue create/--cpu-tier'
            printf '%s\n' value 'BACKGROUND LOW MEDIUM HIGH CRITICAL'
            return
        case 'queue create/--max-memory-per-node'
            printf '%s\n' value ''
            return
        case 'queue create/--max-query-memory-per-node'
            printf '%s\n' value ''
            return
        case 'queue create/--max-running-jobs'
            printf '%s\n' value ''
            return
        case 'queue create/--max-start-timeout'
            printf '%s\n' value ''
            return
        case 'queue create/--max-run-timeout'
            printf '%s\n' value ''
            return
        case 'queue update/--name'
            printf '%s\n' value ''
            return
        case 'queue update/--cpu-tier'
            printf '%s\n' value 'BACKGROUND LOW MEDIUM HIGH CRITICAL'
            return
        case 'queue update/--max-memory-per-node'
            printf '%s\n' value ''
            return
        case 'queue update/--max-query-memory-per-node'
            printf '%s\n' value ''
            return
        case 'queue update/--max-running-jobs'
            printf '%s\n' value ''
            return
        case 'queue update/--max-start-timeout'
            printf '%s\n' value ''
            return
        case 'queue update/--max-run-timeout'
            printf '%s\n' value ''
            return
        case 'queue rules/--file'
            printf '%s\n' value '@files'
            return
        case 'engine create/--name'
            printf '%s\n' value ''
            return
        case 'engine create/--size'
            printf '%s\n' value 'XX_SMALL_V1 X_SMALL_V1 SMALL_V1 MEDIUM_V1 LARGE_V1 X_LARGE_V1 XX_LARGE_V1 XXX_LARGE_V1'
            return
        case 'engine create/--min-replicas'
            printf '%s\n' value ''
            return
        case 'engine create/--max-replicas'
            printf '%s\n' value ''
            return
        case 'engine create/--max-concurrency'
            printf '%s\n' value ''
            return
        case 'engine create/--auto-stop-delay'
            printf '%s\n' value ''
            return
        case 'engine create/--queue-time-limit'
            printf '%s\n' value ''
            return
        case 'engine create/--runtime-limit'
            printf '%s\n' value ''
            return
        case 'engine create/--drain-time-limit'
            printf '%s\n' value ''
            return
        case 'engine create/--description'
            printf '%s\n' value ''
            return
        case 'engine create/--cloud-tag'
            printf '%s\n' value ''
            return
        case 'engine update/--name'
            printf '%s\n' value ''
            return
        case 'engine update/--size'
            printf '%s\n' value 'XX_SMALL_V1 X_SMALL_V1 SMALL_V1 MEDIUM_V1 LARGE_V1 X_LARGE_V1 XX_LARGE_V1 XXX_LARGE_V1'
            return
        case 'engine update/--min-replicas'
            printf '%s\n' value ''
            return
        case 'engine update/--max-replicas'
            printf '%s\n' value ''
            return
        case 'engine update/--max-concurrency'
            printf '%s\n' value ''
            return
        case 'engine update/--auto-stop-delay'
            printf '%s\n' value ''
            return
        case 'engine update/--queue-time-limit'
            printf '%s\n' value ''
            return
        case 'engine update/--runtime-limit'
            printf '%s\n' value ''
            return
        case 'engine update/--drain-time-limit'
            printf '%s\n' value ''
            return
        case 'engine update/--description'
            printf '%s\n' value ''
            return
        case 'engine update/--cloud-tag'
            printf '%s\n' value ''
            return
        case 'engine rules/--file'
            printf '%s\n' value '@files'
            return
        case 'pull/--dir'
            printf '%s\n' value '@files'
            return
        case 'pull/--kinds'
            printf '%s\n' value ''
            return
        case 'plan/--dir'
            printf '%s\n' value '@files'
            return
        case 'plan/--map'
            printf '%s\n' value '@files'
            return
        case 'plan/--out'
            printf '%s\n' value '@files'
            return
        case 'apply/--dir'
            printf '%s\n' value '@files'
            return
        case 'apply/--plan'
            printf '%s\n' value '@files'
            return
        case 'apply/--map'
            printf '%s\n' value '@files'
            return
        case 'apply/--concurrency'
            printf '%s\n' value ''
            return
        case 'diff/-p' 'diff/--profile'
            printf '%s\n' value '@profiles'
            return
        case 'diff/--map'
            printf '%s\n' value '@files'
            return
        case 'api/--data'
            printf '%s\n' value ''
            return
        case 'mcp/-p' 'mcp/--profile'
            printf '%s\n' value '@profiles'
            return
        case 'mcp/--allow-path'
            printf '%s\n' value ''
            return
        case 'mcp/--max-result-bytes'
            printf '%s\n' value ''
            return
        case 'agents install/--scope'
            printf '%s\n' value 'user project'
            return
        case 'agents install/-p' 'agents install/--profile'
            printf '%s\n' value '@profiles'
            return
        case 'agents install/--allow-path'
            printf '%s\n' value ''
            return
        case 'agents install/--max-result-bytes'
            printf '%s\n' value ''
            return
        case 'agents install/--command'
            printf '%s\n' value ''
            return
        case 'agents uninstall/--scope'
            printf '%s\n' value 'user project'
            return
        case '*'
            true
    end
    switch "$opt"
        case '-p' '--profile'
            printf '%s\n' value '@profiles'
            return
        case '--parallel'
            printf '%s\n' value ''
            return
        case '--url'
            printf '%s\n' value ''
            return
        case '--auth-url'
            printf '%s\n' value ''
            return
        case '-o' '--output'
            printf '%s\n' value 'table json ndjson csv'
            return
        case '--query'
            printf '%s\n' value ''
            return
        case '--timeout'
            printf '%s\n' value ''
            return
        case '--ca-file'
            printf '%s\n' value '@files'
            return
        case '--edition'
            printf '%s\n' value 'software cloud'
            return
        case '--project-id'
            printf '%s\n' value ''
            return
        case '--flight-url'
            printf '%s\n' value ''
            return
        case '*'
            true
    end
end

# The values of positional argument number $index.
function __dlake_arg --argument-names cmd index
    switch "$cmd/$index"
        case 'token exchange help/0'
            echo 'client-credentials jwt pat'
        case 'token help/0'
            echo 'exchange'
        case 'profile show/0'
            echo '@profiles'
        case 'profile use/0'
            echo '@profiles'
        case 'profile set/0'
            echo '@profiles'
        case 'profile delete/0'
            echo '@profiles'
        case 'profile help/0'
            echo 'list show use set delete'
        case 'catalog help/0'
            echo 'ls get tree create update delete refresh tags wiki grants lineage'
        case 'source help/0'
            echo 'list get types create update delete'
        case 'job help/0'
            echo 'list get why profile wait cancel results export'
        case 'reflection help/0'
            echo 'list get create update delete refresh summary'
        case 'user help/0'
            echo 'list create get update delete'
        case 'role help/0'
            echo 'list get create update delete add-member remove-member'
        case 'access help/0'
            echo 'why'
        case 'pat help/0'
            echo 'list create delete'
        case 'queue help/0'
            echo 'list get create update delete rules'
        case 'project help/0'
            echo 'list get'
        case 'engine help/0'
            echo 'list get create update delete enable disable rules'
        case 'agents help/0'
            echo 'install uninstall list'
        case 'completion/0'
            echo 'bash zsh fish'
        case 'help/0'
            echo 'login logout whoami doctor token profile catalog source sql job top search reflection user role access pat queue project engine pull plan apply diff api version describe mcp agents completion'
        case '*'
            return 1
    end
end

# Prints the candidates of $vals (words, @profiles or @files), each after $before.
function __dlake_values --argument-names vals typed before
    switch "$vals"
        case @profiles
            for p in (dlake completion --list-profiles 2>/dev/null)
                printf '%s%s\n' "$before" "$p"
            end
        case @files
            for f in (__fish_complete_path "$typed")
                printf '%s%s\n' "$before" "$f"
            end
        case '*'
            for v in (string split -n ' ' -- "$vals")
                printf '%s%s\n' "$before" "$v"
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
        printf '%s\n' $own
        if test -n "$cmd"
            set -l names (string replace -r '\t.*' '' -- $own)
            for g in (__dlake_globals)
                contains -- (string replace -r '\t.*' '' -- $g) $names; or printf '%s\n' $g
            end
        end
        return
    end
    set -l subs (__dlake_subs "$cmd")
    if test $pos -eq 0; and test (count $subs) -gt 0
        printf '%s\n' $subs
        set -l names (string replace -r '\t.*' '' -- $subs)
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
