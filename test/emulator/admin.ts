import type { AreaContext } from './server.js';

export function registerAdmin(_area: AreaContext): void {}
