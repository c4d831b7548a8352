import { describe, expect, it, vi } from 'vitest';
import type { PolicyEngine } from '../../src/model/engine';
import { VOCAB } from '../../src/tasks';
import { EngineTurn } from '../../src/worker/engine-turn';
import { answerTokenProbs, type InspectedRun } from '../../src/worker/token-probs';

// The forward pass itself needs an engine (tests/rl cover it); here: what the Worker answers around it.
vi.mock('../../src/rl/inspect', () => ({
  nextTokenLogp: vi.fn(async () => Float64Array.from(VOCAB, (_, i) => (i === 5 ? Math.log(0.5) : Math.log(0.5 / (VOCAB.length - 1))))),
}));

const ask = { type: 'token-probs' as const, requestId: 4, runId: 'run-a', prompt: '1+1', tokens: [VOCAB[5], VOCAB[6]], position: 0, temperatures: [1], k: 2 };
const trainer = { step: 12, policy: {} as PolicyEngine, config: { model: { contextLength: 64 } } };

async function answer(live: InspectedRun, msg = ask) {
  const replies: unknown[] = [];
  await answerTokenProbs(msg, () => live, new EngineTurn(), (m) => replies.push(m));
  expect(replies).toHaveLength(1);
  return replies[0] as Record<string, unknown>;
}

describe('answerTokenProbs (the inspector\'s token view, answered in the Worker)', () => {
  it('answers with the live policy\'s step, its log-probabilities and the views at each τ', async () => {
    const a = await answer({ runId: 'run-a', trainer });
    expect(a).toMatchObject({ type: 'token-probs', requestId: 4, runId: 'run-a', step: 12 });
    expect((a.logp as number[]).length).toBe(VOCAB.length);
    expect((a.views as unknown[]).length).toBe(1);
  });

  it('says why when the run is not loaded or a token is not in the vocabulary', async () => {
    expect(await answer({ runId: 'run-b', trainer })).toEqual({ type: 'token-probs', requestId: 4, runId: 'run-a', error: 'the policy of this run is not loaded: resume the run (Runs panel) to ask it' });
    expect((await answer({ runId: 'run-a', trainer: null })).error).toMatch(/not loaded/);
    expect((await answer({ runId: 'run-a', trainer }, { ...ask, tokens: ['no such token'] })).error).toBe('token "no such token" is not in the vocabulary');
  });
});
