// The world a command runs in: options, environment, streams, the store, the HTTP client and the output.
// Everything heavy is created on first use, so a command only pays for what it touches.
import type { Dispatcher } from 'undici';
import type { ApiClient, AuthProvider } from './api/http.js';
import type { Pacer } from './api/pacing.js';
import type { RouteMemory } from './api/pipeline/route.js';
import type { Root } from './api/roots.js';
import {
  authUrlOf,
  checkProxyVariables,
  checkTokenText,
  type ResolvedSettings,
  type ResolveOptions,
  requireUrl,
  resolveSettings,
} from './auth/settings.js';
import { configDir } from './config/dir.js';
import { SecretVault } from './config/secrets.js';
import { ConfigStore, type StoreSnapshot } from './config/store.js';
import { type DlakeError, rephrased, type StopSignal, UsageError } from './errors.js';
import { type GlobalOptions, OUTPUT_FORMATS, type OutputFormat } from './global-options.js';
import { colorEnabled, type Theme, theme } from './output/color.js';
import { hintFor, sayFailure } from './output/hints.js';
import { render } from './output/render.js';
import { stderrSafe } from './output/safe-text.js';
import { type Streams, Ui } from './output/ui.js';
import type { Renderable } from './output/view.js';
import { terminalWidth } from './output/width.js';
import { secretsInForce } from './util/secrets.js';
import { parseDuration } from './util/units.js';

interface ClientRequest {
  /** Attach the credentials of the settings in force (default true), or these credentials. */
  auth?: boolean | AuthProvider;
  /** Settings resolution options (e.g. a profile that is about to be created). */
  resolve?: ResolveOptions;
  /** A bound of each request other than --timeout, and no retries: one try, said as it went (`doctor`). */
  oneTry?: { timeoutMs: number };
}

/**
 * What a run of dlake gets from its caller: the process's environment and streams for the CLI, or a test's own
 * (an in-process run with captured streams, a temporary config folder, a MockAgent as dispatcher).
 */
export interface World {
  env: NodeJS.ProcessEnv;
  streams: Streams;
  /** The config store; default: the one in DLAKE_CONFIG_DIR or the platform's config folder. */
  store?: ConfigStore;
  /** The HTTP dispatcher of every client; default: one per client, built from the settings in force. */
  dispatcher?: Dispatcher;
  /**
   * Receives what the command prints through `print`, instead of stdout: one profile's run of a command run
   * across several (src/fleet.ts), whose results are merged into one.
   */
  collect?: (r: Renderable, format: OutputFormat) => void;
}

export class Context {
  readonly store: ConfigStore;
  readonly ui: Ui;
  readonly theme: Theme;
  /**
   * Aborted on Ctrl-C (SIGINT), SIGTERM or SIGHUP when `interruptible`: long waits and exports listen to it
   * and clean up.
   */
  readonly interrupt = new AbortController();
  /** Which signal aborted `interrupt`: Ctrl-C may ask before cancelling a job; the others never can. */
  interruptedBy?: StopSignal;
  /** Set by commands that handle Ctrl-C themselves; otherwise Ctrl-C ends dlake at once with 130. */
  interruptible = false;
  /**
   * When the command began (in the SQL shell, the statement): an export's closing line times all that the user
   * waited for, the login and the job's wait included, not the export alone.
   */
  startedAt = performance.now();
  /** The job being waited on, until it has ended or been cancelled: a second signal names it as it stops. */
  jobInFlight?: string;
  /** Also receives the request trace (`--debug`'s lines, secrets redacted): `doctor --bundle` keeps it. */
  traceSink?: (line: string) => void;
  private snapshotCache?: StoreSnapshot;
  private settingsCache?: ResolvedSettings;
  private clients: ApiClient[] = [];
  /** The client with the credentials in force, shared by every call of one command (one connection pool). */
  private defaultClient?: Promise<ApiClient>;
  private settingsNoticeShown = false;
  /** The hosted edition's pacing, shared by every client of the command (one budget per IP address). */
  private pacerCache?: Pacer;
  private credentialsWarned = false;

  readonly env: NodeJS.ProcessEnv;
  readonly streams: Streams;
  private readonly dispatcher?: Dispatcher;
  private readonly collect?: World['collect'];

  /** The Context of a command run with `opts` in `world`, its colours loaded if it uses any. */
  static async create(opts: GlobalOptions, world: World): Promise<Context> {
    const colored = colorEnabled(Boolean(world.streams.stderr.isTTY), world.env, opts.color === false);
    return new Context(opts, world, await theme(colored));
  }

  private constructor(
    readonly opts: GlobalOptions,
    world: World,
    theme: Theme,
  ) {
    const { env, streams } = world;
    this.env = env;
    this.streams = streams;
    this.dispatcher = world.dispatcher;
    this.collect = world.collect;
    this.store = world.store ?? new ConfigStore(configDir(env), new SecretVault(env));
    this.theme = theme;
    this.ui = new Ui(streams, this.theme, Boolean(opts.quiet), Boolean(opts.verbose));
  }

  get debugging(): boolean {
    return Boolean(this.opts.debug) || this.env.DLAKE_DEBUG === '1' || this.env.DLAKE_DEBUG === 'true';
  }

  snapshot(): StoreSnapshot {
    if (!this.snapshotCache) {
      this.snapshotCache = this.store.read();
      // The stored tokens are secrets in force whether or not this command sends them (output/secrets.ts).
      secretsInForce()?.addStored(this.snapshotCache.credentials);
      // Once per command, however often the store is read again after a write.
      const { modeRepairs, credentialsProblem } = this.snapshotCache;
      if (!this.credentialsWarned && (modeRepairs || credentialsProblem)) {
        this.credentialsWarned = true;
        for (const repaired of this.snapshotCache.modeRepairs ?? []) this.ui.warn(repaired);
        if (this.snapshotCache.credentialsProblem) this.ui.warn(this.snapshotCache.credentialsProblem);
      }
    }
    return this.snapshotCache;
  }

  /** Forget the cached snapshot after a write, so later reads see it. */
  refreshSnapshot(s?: StoreSnapshot): void {
    this.snapshotCache = s;
    this.settingsCache = undefined;
  }

  settings(resolve: ResolveOptions = {}): ResolvedSettings {
    if (!this.settingsCache) {
      this.settingsCache = resolveSettings(this.opts, this.env, this.snapshot(), resolve);
      const ignored = this.settingsCache.ignoredEnv;
      if (ignored.length && !this.settingsNoticeShown) {
        this.settingsNoticeShown = true;
        this.ui.notice(
          `note: --profile ${this.settingsCache.profileName.value} given: ignoring ${ignored.join(', ')} from the environment`,
        );
      }
    }
    return this.settingsCache;
  }

  get format(): OutputFormat {
    if (this.opts.json) return 'json';
    const setting = this.settings().output;
    const value = this.opts.output ?? setting.value;
    if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) {
      const from = setting.source === 'environment' ? `${setting.name}: ` : '';
      throw new UsageError(`${from}unknown output format "${value}"`, {
        hint: `use one of: ${OUTPUT_FORMATS.join(', ')}`,
      });
    }
    return value as OutputFormat;
  }

  /** The edition and project in force: where every request goes (src/api/roots.ts). */
  root(): Root {
    const s = this.settings();
    return { edition: s.edition.value, projectId: s.projectId?.value };
  }

  /** The pacing of the hosted edition's rate limits (undefined on the self-hosted edition). */
  async pacer(): Promise<Pacer | undefined> {
    if (this.root().edition !== 'cloud') return undefined;
    if (!this.pacerCache) {
      const { Pacer, paceLimits } = await import('./api/pacing.js');
      this.pacerCache = new Pacer(paceLimits(this.env));
    }
    return this.pacerCache;
  }

  /** The per-request timeout: a duration with a unit, longer than 0, named by where it came from if not. */
  timeoutMs(): number {
    const t = this.settings().timeout;
    const what = t.source === 'environment' ? (t.name ?? 'DLAKE_TIMEOUT') : '--timeout';
    let ms: number;
    try {
      ms = parseDuration(t.value);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      throw rephrased(e, `${what}: ${e.message}`);
    }
    if (ms <= 0) throw new UsageError(`${what} must be longer than 0`, { hint: 'e.g. 30s' });
    return ms;
  }

  /**
   * Checks every setting in force that a request depends on, whether it came from a flag, the environment or
   * the profile, before the first request (docs/cli-contract.md "Global options, environment and
   * precedence"): a bad DLAKE_OUTPUT must not fail a command after it has changed something.
   */
  checkSettings(): void {
    const settings = this.settings();
    void this.format;
    this.timeoutMs();
    if (settings.envToken) checkTokenText(settings.envToken, 'DLAKE_TOKEN');
    if (!this.dispatcher) checkProxyVariables(this.env);
  }

  /** An API client for the settings in force; with `auth`, it sends (and renews) the credentials. */
  client(req: ClientRequest = {}): Promise<ApiClient> {
    if (req.auth !== undefined || req.resolve || req.oneTry) return this.createClient(req);
    this.defaultClient ??= this.createClient(req);
    return this.defaultClient;
  }

  private async createClient(req: ClientRequest): Promise<ApiClient> {
    const settings = this.settings(req.resolve);
    const url = requireUrl(settings);
    this.checkSettings();
    // One turn of the event loop before the HTTP client's modules load (synchronous work, tens of ms): the
    // read's request leaves now, not after them, and the store's answer comes while they load.
    if ((req.auth === undefined || req.auth === true) && this.prefetchSecrets(settings))
      await new Promise((turn) => setImmediate(turn));
    const [{ ApiClient }, { CredentialProvider }, { hostedLoginUrl }] = await Promise.all([
      import('./api/http.js'),
      import('./auth/credentials.js'),
      import('./api/roots.js'),
    ]);
    const root = this.root();
    // The hosted edition's tokens come from its login service (docs/api-facts.md §13.2).
    const authUrl = authUrlOf(settings) ?? (root.edition === 'cloud' ? hostedLoginUrl(url) : undefined);
    if (this.opts.insecure && this.clients.length === 0) {
      this.ui.warn('TLS certificate verification is disabled (--insecure)');
    }
    const credentials =
      req.auth === false || typeof req.auth === 'object'
        ? undefined
        : new CredentialProvider({
            settings,
            url,
            store: this.store,
            snapshot: this.snapshot(),
            notice: (msg) => this.ui.warn(msg),
          });
    const provider = typeof req.auth === 'object' ? req.auth : credentials;
    const client = new ApiClient({
      baseUrl: url,
      authUrl,
      timeoutMs: req.oneTry?.timeoutMs ?? this.timeoutMs(),
      retry: req.oneTry ? { retries: 0 } : undefined,
      caFile: settings.caFile?.value,
      insecure: this.opts.insecure,
      env: this.env,
      auth: provider,
      trace:
        this.debugging || this.traceSink
          ? (line) => {
              this.traceSink?.(line);
              if (this.debugging) this.streams.stderr.write(`debug: ${stderrSafe(line)}\n`);
            }
          : undefined,
      userAgent: `dlake/${__DLAKE_VERSION__} node/${process.versions.node}`,
      dispatcher: this.dispatcher,
      root,
      routeMemory: root.edition === 'cloud' ? this.routeMemory(settings) : undefined,
      pacer: await this.pacer(),
    });
    credentials?.attach(client);
    this.clients.push(client);
    return client;
  }

  /**
   * Starts reading the stored token's secrets from the credential store (on Linux over D-Bus, in-process;
   * elsewhere through a helper process: src/config/secrets.ts) while the HTTP client is loaded and built, so that
   * its start costs the command as little time as it can; whether it did. The credentials provider awaits the
   * same read; nothing is sent before it has decided the token may be used.
   */
  private prefetchSecrets(settings: ResolvedSettings): boolean {
    if (settings.envToken) return false;
    const name = settings.profileName.value;
    const stored = this.snapshot().credentials.tokens[name];
    if (!stored?.keyring) return false;
    void this.store.reveal(name, stored).catch(() => undefined);
    return true;
  }

  /**
   * Which hosted form of a resource answered, kept in the profile in force (none without a stored profile):
   * the route layer tries the documented form first and remembers another that answered (api/pipeline/route.ts).
   */
  private routeMemory(settings: ResolvedSettings): RouteMemory | undefined {
    const name = settings.profileName.value;
    const routes = { ...settings.profile?.routes };
    if (!settings.profile) return undefined;
    return {
      recall: (family) => routes[family],
      remember: async (family, form) => {
        routes[family] = form;
        // A cache: a config folder that cannot be written must not fail the command that found the form.
        await this.store
          .update((s) => {
            const profile = s.config.profiles[name];
            if (profile) profile.routes = { ...profile.routes, [family]: form };
          })
          .catch(() => {});
      },
    };
  }

  /**
   * Writes a result to stdout in the chosen format (and a note, such as "No results.", to stderr); with `page`, a
   * table longer than the terminal goes through the pager (src/output/pager.ts).
   */
  async print<T>(
    r: Renderable<T>,
    format: OutputFormat = this.format,
    { page = false }: { page?: boolean } = {},
  ): Promise<void> {
    if (this.collect) return this.collect(r as Renderable, format);
    const out = await render(r, {
      format,
      query: this.opts.query,
      theme: this.theme,
      width: terminalWidth(this.streams.stdout, this.env),
      terminal: Boolean(this.streams.stdout.isTTY),
    });
    if (out.stdout && page && format === 'table') {
      const { pageOrPrint } = await import('./output/pager.js');
      await pageOrPrint(this.streams.stdout, this.env, out.stdout, true);
    } else if (out.stdout) this.streams.stdout.write(out.stdout);
    if (out.note) this.ui.notice(out.note);
  }

  /** The `hint:` line of an error of this command (src/output/hints.ts). */
  hint(err: DlakeError): string | undefined {
    return hintFor(err, this.opts);
  }

  /**
   * Says a failure while the command goes on (a statement of a script with --continue-on-error, the SQL shell)
   * exactly as src/runtime.ts says the one that ends a command.
   */
  sayFailure(err: DlakeError, label?: string): void {
    sayFailure(err, {
      streams: this.streams,
      theme: this.theme,
      verbose: Boolean(this.opts.verbose) || this.debugging,
      opts: this.opts,
      label,
    });
  }

  async dispose(): Promise<void> {
    this.store.vault?.close();
    await Promise.allSettled(this.clients.map((c) => c.close()));
  }
}
