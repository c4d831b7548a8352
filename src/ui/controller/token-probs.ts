/** The group inspector's token-view requests waiting for the Worker's answer, by request id. */
import type { TokenProbsAnswer, ToWorker } from '../../worker/protocol';

export type TokenProbsQuestion = { runId: string; prompt: string; tokens: string[]; position: number; temperatures: number[]; k: number };

export class TokenProbsRequests {
  private readonly waiting = new Map<number, (a: TokenProbsAnswer) => void>();
  private lastId = 0;

  /** Sends the question with `send`; resolves with the Worker's answer, or the error `send` threw. */
  request(q: TokenProbsQuestion, send: (m: ToWorker) => void): Promise<TokenProbsAnswer> {
    const requestId = ++this.lastId;
    return new Promise((resolve) => {
      this.waiting.set(requestId, resolve);
      try {
        send({ type: 'token-probs', requestId, ...q });
      } catch (e) {
        this.waiting.delete(requestId);
        resolve({ requestId, runId: q.runId, error: (e as Error).message });
      }
    });
  }

  /** The Worker's answer (one to no waiting request is ignored). */
  answer(a: TokenProbsAnswer): void {
    this.waiting.get(a.requestId)?.(a);
    this.waiting.delete(a.requestId);
  }

  /** Answers every waiting request with `why` (the Worker that would answer them is gone). */
  failAll(why: string): void {
    for (const [requestId, answer] of this.waiting) answer({ requestId, runId: '', error: why });
    this.waiting.clear();
  }
}
