// esbuild plugins that keep modules dlake does not use from loading at every start (bench/startup.ts).

// dlake never negotiates HTTP/2: undici offers `h2` only with `allowH2` (off by default, and dlake never
// sets it), and picks its HTTP/2 client only for a socket that negotiated `h2`. That client module requires
// node:http2 when it loads, which drags in node:tls and node:crypto: the biggest cost at start of a command
// that makes one plain request. Bundle a stand-in that says so if it is ever reached.
// test/unit/undici-lite.test.ts fails if undici moves that module or starts using it otherwise.
export const UNDICI_H2_CLIENT = /node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/;
export const leaveOutHttp2 = {
  name: 'leave-out-undici-http2',
  setup(b) {
    b.onLoad({ filter: UNDICI_H2_CLIENT }, () => ({
      loader: 'js',
      contents: `'use strict'
module.exports = function connectH2 () {
  throw new Error('dlake does not speak HTTP/2: the server negotiated h2 although it was not offered')
}`,
    }));
  },
};

// zod's classic and mini entries export every locale of its error messages (371 KB) as `z.locales`, which
// dlake never uses: its messages are its own, in English, and zod's English locale is imported on its own
// by the entry that configures it. test/unit/undici-lite.test.ts checks that path.
export const ZOD_LOCALES = /node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.c?js$/;
export const leaveOutZodLocales = {
  name: 'leave-out-zod-locales',
  setup(b) {
    b.onLoad({ filter: ZOD_LOCALES }, (args) => ({
      loader: 'js',
      contents: args.path.endsWith('.cjs') ? 'module.exports = {};' : 'export {};',
    }));
  },
};

// @grpc/grpc-js requires @grpc/proto-loader (and with it protobufjs, 110 KB) only to serve its channelz and
// ORCA services, from .proto files it reads beside its own sources, which a bundle does not have: dlake's
// client uses neither. A stand-in says so if it is ever reached.
export const GRPC_OPTIONAL_PROTO =
  /node_modules[\\/]@grpc[\\/]grpc-js[\\/]build[\\/]src[\\/](channelz|orca)\.js$/;
export const leaveOutGrpcProtoLoader = {
  name: 'leave-out-grpc-proto-loader',
  setup(b) {
    b.onResolve({ filter: /^@grpc\/proto-loader$/ }, (args) =>
      GRPC_OPTIONAL_PROTO.test(args.importer) ? { path: args.path, namespace: 'no-proto-loader' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-proto-loader' }, () => ({
      loader: 'js',
      contents: `'use strict'
module.exports = { loadSync () { throw new Error('channelz and ORCA are not part of dlake') } }`,
    }));
  },
};

// dlake is a gRPC client only. @grpc/grpc-js's entry (and its `experimental` module) reach its server
// (server.js, its calls, interceptors and credentials: a sixth of the library) only through getters of their
// exports (`grpc.Server`, …), which dlake never reads: those read `undefined` in the bundle.
// test/e2e/bundle.test.ts checks that the client's parts are whole.
export const GRPC_ENTRY =
  /node_modules[\\/]@grpc[\\/]grpc-js[\\/]build[\\/]src[\\/](index|experimental)\.js$/;
export const leaveOutGrpcServer = {
  name: 'leave-out-grpc-server',
  setup(b) {
    b.onResolve({ filter: /^\.\/server(-credentials|-interceptors)?$/ }, (args) =>
      GRPC_ENTRY.test(args.importer) ? { path: args.path, namespace: 'no-grpc-server' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-grpc-server' }, () => ({
      loader: 'js',
      contents: 'module.exports = {};',
    }));
  },
};

// ora draws the spinner its options name, `dots` by default (`line` where the terminal lacks Unicode); dlake
// names none, so of cli-spinners' ninety it bundles those two. Anything else ora would look up is undefined,
// which ora refuses by name.
export const CLI_SPINNERS = /node_modules[\\/]cli-spinners[\\/]spinners\.json$/;
export const onlyOraDefaultSpinners = {
  name: 'only-ora-default-spinners',
  setup(b) {
    b.onLoad({ filter: CLI_SPINNERS }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const { dots, line } = JSON.parse(await readFile(args.path, 'utf8'));
      return { loader: 'json', contents: JSON.stringify({ dots, line }) };
    });
  },
};

// The MCP SDK's Server validates what a client answers to an elicitation with ajv (and ajv-formats), about
// 150 KB; dlake's server never elicits. A stand-in says so if it is ever reached.
export const MCP_AJV_PROVIDER =
  /node_modules[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/;
export const leaveOutAjv = {
  name: 'leave-out-ajv',
  setup(b) {
    b.onLoad({ filter: MCP_AJV_PROVIDER }, () => ({
      loader: 'js',
      contents: `export class AjvJsonSchemaValidator {
  getValidator() { throw new Error('JSON Schema validation (elicitation) is not part of dlake'); }
}`,
    }));
  },
};
