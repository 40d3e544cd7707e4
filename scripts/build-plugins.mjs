// esbuild plugins that keep modules dlake does not use from loading at every start (bench/startup.ts).
import { readFile } from 'node:fs/promises';

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

// commander requires node:child_process when it loads, for executable subcommands (`git-style` separate
// programs) that dlake does not have: require it only when a subcommand would be spawned. The build fails
// if commander's line changes, rather than bundling a silently different commander.
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
export const lazyCommanderChildProcess = {
  name: 'lazy-commander-child-process',
  setup(b) {
    b.onLoad({ filter: /node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(COMMANDER_CHILD_PROCESS))
        throw new Error(`commander changed: "${COMMANDER_CHILD_PROCESS}" is gone from ${args.path}`);
      return {
        loader: 'js',
        contents: source.replace(
          COMMANDER_CHILD_PROCESS,
          "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
        ),
      };
    });
  },
};
