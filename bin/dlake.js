#!/usr/bin/env node
// Thin shim: the launcher loads the bundled CLI in this same process (no second node start). CommonJS
// (bin/package.json): a process that starts from a script never initializes Node's ES module loader.
require('../dist/boot.cjs').boot(process.argv);
