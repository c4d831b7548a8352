/** The inspector's token view: the live policy's distribution at one position (src/rl/inspect.ts), between two steps. */
import type { PolicyEngine } from '../model/engine';
import { nextTokenLogp } from '../rl/inspect';
import { temperatureViews } from '../rl/token-probs';
import { encodePrompt, VOCAB } from '../tasks';
import type { EngineTurn } from './engine-turn';
import type { FromWorker, ToWorker } from './protocol';

/** What the answer reads of the Worker's live run (MagicTrainer has it). */
export interface InspectedRun {
  runId: string | null;
  trainer: { readonly step: number; readonly policy: PolicyEngine; readonly config: { model: { contextLength: number } } } | null;
}

const errMsg = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Sends `reply` the `token-probs` answer to `msg`: the forward pass waits for the engine's turn, and reads the run live then. */
export async function answerTokenProbs(msg: Extract<ToWorker, { type: 'token-probs' }>, live: () => InspectedRun, turn: EngineTurn, reply: (m: Extract<FromWorker, { type: 'token-probs' }>) => void): Promise<void> {
  const { requestId, runId: forRun } = msg;
  try {
    const got = await turn.exclusive(async () => {
      const { trainer, runId } = live();
      if (!trainer || runId !== forRun) throw new Error('the policy of this run is not loaded: resume the run (Runs panel) to ask it');
      const ids = msg.tokens.map((t) => {
        const id = VOCAB.indexOf(t);
        if (id < 0) throw new Error(`token ${JSON.stringify(t)} is not in the vocabulary`);
        return id;
      });
      const logp = await nextTokenLogp(trainer.policy, encodePrompt(msg.prompt), ids, msg.position, trainer.config.model.contextLength);
      // The policy now (the run may have been stopped meanwhile: then there is none).
      return { step: live().trainer!.step, logp, sampled: ids[msg.position] };
    });
    const views = temperatureViews(got.logp, msg.temperatures, msg.k, got.sampled);
    reply({ type: 'token-probs', requestId, runId: forRun, step: got.step, logp: Array.from(got.logp), views });
  } catch (e) {
    reply({ type: 'token-probs', requestId, runId: forRun, error: errMsg(e) });
  }
}
