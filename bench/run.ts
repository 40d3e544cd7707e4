// `npm run bench`: every benchmark, one after the other, as markdown ready for the README.
import { benchAscode, benchAscodeScale } from './ascode.js';
import { benchExport } from './export.js';
import { benchFlight } from './flight.js';
import { benchStartup } from './startup.js';
import { benchTree } from './tree.js';

const started = new Date().toISOString();
console.log(`# dlake benchmarks (${started}, Node ${process.versions.node})\n`);
console.log(`## Startup\n\n${await benchStartup()}\n`);
console.log(`## catalog tree\n\n${await benchTree()}\n`);
console.log(`## Export\n\n${await benchExport()}\n`);
console.log(`## Export over Arrow Flight\n\n${await benchFlight()}\n`);
console.log(`## apply\n\n${await benchAscode()}\n`);
console.log(`## Definitions as code: pull, plan, apply at 10,000 entities\n\n${await benchAscodeScale()}\n`);
