#!/usr/bin/env node
// Thin shim: load the bundled CLI in this same process (no second node start).
import { main } from '../dist/cli.js';

main(process.argv);
