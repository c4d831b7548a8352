import { describe, expect, it } from 'vitest';
import { TokenProbsRequests } from '../../../src/ui/controller/token-probs';
import type { ToWorker } from '../../../src/worker/protocol';

const q = { runId: 'run-a', prompt: '1+1', tokens: ['2'], position: 0, temperatures: [1], k: 3 };

describe('TokenProbsRequests (token-view questions waiting for the Worker)', () => {
  it('numbers each request and resolves it with its own answer', async () => {
    const r = new TokenProbsRequests();
    const sent: ToWorker[] = [];
    const a = r.request(q, (m) => sent.push(m));
    const b = r.request({ ...q, position: 1 }, (m) => sent.push(m));
    expect(sent).toEqual([
      { type: 'token-probs', requestId: 1, ...q },
      { type: 'token-probs', requestId: 2, ...q, position: 1 },
    ]);
    r.answer({ requestId: 2, runId: 'run-a', error: 'second' });
    r.answer({ requestId: 1, runId: 'run-a', step: 4, logp: [0], views: [] });
    r.answer({ requestId: 1, runId: 'run-a', error: 'late duplicate' });
    expect(await a).toEqual({ requestId: 1, runId: 'run-a', step: 4, logp: [0], views: [] });
    expect(await b).toEqual({ requestId: 2, runId: 'run-a', error: 'second' });
  });

  it('a send that throws is the answer; a restarted engine answers everything waiting', async () => {
    const r = new TokenProbsRequests();
    expect(
      await r.request(q, () => {
        throw new Error('the lab Worker is not running');
      }),
    ).toEqual({ requestId: 1, runId: 'run-a', error: 'the lab Worker is not running' });
    const waiting = r.request(q, () => undefined);
    r.failAll('the engine was restarted');
    expect(await waiting).toEqual({ requestId: 2, runId: '', error: 'the engine was restarted' });
    r.failAll('again'); // nothing left
  });
});
