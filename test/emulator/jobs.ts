import type { AreaContext } from './server.js';

export async function registerJobs(_area: AreaContext): Promise<void> {}
