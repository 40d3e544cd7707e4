#!/usr/bin/env node
// The `dlake-emulator` command: starts the emulator from the command line (see `dlake-emulator --help`).
import '../dist/main.js';
