// The parts of undici that dlake uses, loaded without the rest of the package. Importing 'undici'
// evaluates fetch, WebSocket, caches and mocks too: 27 ms at every start, against 12 ms for these
// modules (bench/startup.ts). The paths are undici's own files, pinned by package-lock.json; the types
// are the public ones. `Dispatcher.prototype.request` is the documented API (undici's index.js attaches
// the api methods to the prototype the same way).
import type * as Undici from 'undici';
// @ts-expect-error internal module without its own declaration file
import api from 'undici/lib/api/index.js';
// @ts-expect-error internal module without its own declaration file
import AgentImpl from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error internal module without its own declaration file
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
// @ts-expect-error internal module without its own declaration file
import EnvHttpProxyAgentImpl from 'undici/lib/dispatcher/env-http-proxy-agent.js';

Object.assign(DispatcherImpl.prototype, api);

export const Agent = AgentImpl as typeof Undici.Agent;
export const EnvHttpProxyAgent = EnvHttpProxyAgentImpl as typeof Undici.EnvHttpProxyAgent;
export type Dispatcher = Undici.Dispatcher;
export type DispatchOptions = Undici.Dispatcher.DispatchOptions;
export type DispatchController = Undici.Dispatcher.DispatchController;
