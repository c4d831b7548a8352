/**
 * Every interval REPLICATION.md reports recomputes from what the repository holds: the committed
 * runs (reports/pool-small, metrics.jsonl.gz and precise evaluations; raw data restored from the
 * branch reports-data as `npm run reports:data` does) give each finding's summary and report.json
 * byte for byte, and the reports give REPLICATION.md.
 */
import { describe, expect, it } from 'vitest';
import { checkReplication } from '../../src/sweep/replication-check';
import { ensureReportsData } from '../reports-data';

describe('replication from the committed runs', () => {
  it('recomputes every report.json, summary and REPLICATION.md exactly', () => {
    ensureReportsData();
    const done: string[] = [];
    expect(checkReplication('reports', 'REPLICATION.md', (s) => done.push(s))).toEqual([]);
    expect(done.length).toBeGreaterThan(0);
  }, 300_000);
});
