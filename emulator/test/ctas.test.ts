// CREATE TABLE … AS: which statements the jobs area treats as a CTAS, and the path they name.
import { describe, expect, it } from 'vitest';
import { parseCtas } from '../src/ctas.js';

describe('parseCtas', () => {
  it.each([
    ['CREATE TABLE lake.t AS SELECT 1', ['lake', 't'], 'SELECT 1'],
    [
      '  create table lake . exports . t\nas\nSELECT * FROM big;',
      ['lake', 'exports', 't'],
      'SELECT * FROM big',
    ],
    ['CREATE TABLE lake."first 5000"."x.y ""z""" AS SELECT 2', ['lake', 'first 5000', 'x.y "z"'], 'SELECT 2'],
  ])('%j', (sql, path, query) => {
    expect(parseCtas(sql)).toEqual({ path, query });
  });

  it.each([
    'SELECT 1',
    'CREATE VIEW lake.v AS SELECT 1',
    'CREATE TABLE lake."open AS SELECT 1',
    'CREATE TABLE lake.t (id INT)',
  ])('not a CTAS: %j', (sql) => {
    expect(parseCtas(sql)).toBeUndefined();
  });
});
