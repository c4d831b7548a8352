// `node tests/cli/kill-at-step.mjs STEP train …`: runs `magic-lab train …` in this process and kills it
// with SIGKILL right after step STEP's records are written (and the checkpoint of that step, if one
// is due): a real kill -9 at a known step, for the resume tests.
import { register } from 'tsx/esm/api';

register();
const [at, cmd, ...argv] = process.argv.slice(2);
if (cmd !== 'train') throw new Error('kill-at-step.mjs: only train');
const { train } = await import('../../src/cli/train.ts');
await train(argv, () => {}, {
  afterStep: (step) => {
    if (step === Number(at)) process.kill(process.pid, 'SIGKILL');
  },
});
process.stderr.write(`kill-at-step.mjs: the run ended before step ${at}\n`);
process.exit(3);
