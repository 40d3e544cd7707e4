// The README is for users: short (the reference is docs/commands.md, generated and kept in step by its own
// test), it names every command group, links the docs pages, and speaks of the product, not of how the work
// on it was organised.
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUPS } from '../../src/commands/registry.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const DOCS = readdirSync(resolve(ROOT, 'docs')).filter((f) => f.endsWith('.md'));

describe('README', () => {
  it('stays a short guide for users: at most 600 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(600);
  });

  it('names every command group', () => {
    const missing = GROUPS.map((g) => g.name).filter((name) => !new RegExp(`dlake ${name}\\b`).test(README));
    expect(missing).toEqual([]);
  });

  it('links every page of docs/', () => {
    expect(DOCS.length).toBeGreaterThan(5);
    expect(DOCS.filter((f) => !README.includes(`(docs/${f}`))).toEqual([]);
  });

  it('and the docs speak of the product, never of issues or rounds of work', () => {
    const texts = {
      'README.md': README,
      ...Object.fromEntries(DOCS.map((f) => [f, readFileSync(resolve(ROOT, 'docs', f), 'utf8')])),
    };
    const offending = Object.entries(texts).filter(([, text]) => /\bissues? \d|\bissue goals?\b/i.test(text));
    expect(offending.map(([f]) => f)).toEqual([]);
  });
});
