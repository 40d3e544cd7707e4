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
