import type { AreaContext } from './server.js';

export function registerAuth(_area: AreaContext): void {}
