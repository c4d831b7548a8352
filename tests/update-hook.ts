/**
 * A backend whose policies' `update` calls pass through a hook (the divergence tests use it to make
 * chosen optimizer steps non-finite). Calls are counted from 1 per wrapped backend.
 */
import type { Backend, PolicyEngine } from '../src/model/engine';

type Update = PolicyEngine['update'];

/** `backend` with `hook(call, update, …args)` in place of `update` on the policies named `policy` (every policy when omitted). */
export function interceptUpdates(backend: Backend, hook: (call: number, update: Update, ...args: Parameters<Update>) => ReturnType<Update>, policy?: string): Backend {
  let calls = 0;
  return {
    ...backend,
    createPolicy: async (cfg, name) => {
      const p = await backend.createPolicy(cfg, name);
      if (policy !== undefined && name !== policy) return p;
      const update = p.update.bind(p);
      p.update = (...args) => hook(++calls, update, ...args);
      return p;
    },
  };
}
