// Preloaded into a spawned dlake (NODE_OPTIONS=--require …) by the no-telemetry test: appends, to the file
// DLAKE_TEST_CONNECTION_LOG names, one line for every network connection the process opens (TCP and TLS,
// which HTTP, HTTP/2 and gRPC all go through; IPC sockets aside) and every UDP datagram it sends, so the test
// can check where dlake connects. Loaded before dlake; changes nothing dlake does.
const { appendFileSync } = require('node:fs');
const net = require('node:net');
const dgram = require('node:dgram');

const log = process.env.DLAKE_TEST_CONNECTION_LOG;
const note = (line) => appendFileSync(log, `${line}\n`);

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  if (options.path === undefined) note(`tcp ${options.host ?? 'localhost'}:${options.port}`);
  return connect.apply(this, args);
};

const send = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function (...args) {
  note(
    `udp ${args.find((a) => typeof a === 'string') ?? '?'}:${args.find((a, i) => i > 0 && typeof a === 'number') ?? '?'}`,
  );
  return send.apply(this, args);
};
