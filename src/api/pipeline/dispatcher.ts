// The undici dispatcher of one client: keep-alive, explicit timeouts, an extra CA and the proxy variables.
import { UsageError } from '../../errors.js';
import { readCaFile } from '../../util/files.js';
import { Agent, type Dispatcher, EnvHttpProxyAgent } from '../undici-lite.js';

interface DispatcherOptions {
  caFile?: string;
  insecure?: boolean;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  let ca: string[] | undefined;
  if (opts.caFile) {
    try {
      // An extra CA adds to the system's roots; it does not replace them. node:tls (and with it all of
      // node:crypto) is loaded only here: a plain-http request does not need it at start.
      const { rootCertificates } = process.getBuiltinModule('node:tls');
      const pem = readCaFile(opts.caFile);
      // Node would take a file without a certificate silently and then trust nothing extra.
      if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(pem)) {
        throw new UsageError(`the CA file ${opts.caFile} holds no PEM certificate`, {
          hint: { kind: 'ca-file-without-certificate' },
        });
      }
      ca = [...rootCertificates, pem];
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot use the CA file ${opts.caFile}: ${(e as Error).message}`);
    }
  }
  const connect = { ca, rejectUnauthorized: !opts.insecure, timeout: opts.timeoutMs };
  const common = {
    connect,
    keepAliveTimeout: 10_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  };
  const env = opts.env;
  const httpProxy = env.HTTP_PROXY ?? env.http_proxy;
  const httpsProxy = env.HTTPS_PROXY ?? env.https_proxy;
  if (httpProxy || httpsProxy) {
    return new EnvHttpProxyAgent({
      ...common,
      httpProxy,
      httpsProxy,
      noProxy: env.NO_PROXY ?? env.no_proxy,
      requestTls: { ca, rejectUnauthorized: !opts.insecure },
    });
  }
  return new Agent(common);
}
