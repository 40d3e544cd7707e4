import type { AreaContext } from './server.js';

export async function registerCatalog(_area: AreaContext): Promise<void> {}
