// Placeholder: this command group is being written.
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';

export function register(_program: Command, _rt: Runtime): void {}
