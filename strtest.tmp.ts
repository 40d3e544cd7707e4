import { DuckDBInstance } from '@duckdb/node-api';
import { bigTableSql } from './emulator/src/sql-engine.ts';
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run(bigTableSql(100000));
const r = await conn.stream('SELECT * FROM big');
let adj = 0, tot = 0, inl = 0;
for (;;) {
  const ch = await r.fetchChunk(); if (!ch || ch.rowCount === 0) break;
  for (const c of [1, 4]) {
    const v = ch.getColumnVector(c) as any; const dv: DataView = v.dataView;
    let prevEnd = -1n;
    for (let i = 0; i < ch.rowCount; i++) {
      const len = dv.getUint32(i * 16, true);
      if (len <= 12) { inl++; continue; }
      const ptr = dv.getBigUint64(i * 16 + 8, true);
      tot++; if (ptr === prevEnd) adj++;
      prevEnd = ptr + BigInt(len);
    }
  }
}
console.log({ tot, adj, inl });
