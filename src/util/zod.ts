// zod's English messages for the functional `zod/mini` API dlake's schemas use (its schemas cost less to build
// and to load than zod's classic ones: docs/architecture.md "Start-up"). The classic API sets them on its
// own; `zod/mini` leaves it to the program. Only the English locale is loaded, not zod's list of them. Every
// module that declares schemas imports this file for its effect, beside `import * as z from 'zod/mini'`
// (a namespace re-exported from here would keep esbuild from leaving out the parts of zod dlake never uses).
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
