/**
 * The import cases whose output was recorded (tests/verl/fixtures/import-golden/) by the
 * in-memory importer before import-verl streamed: the streaming path must write the same bytes.
 */
export interface GoldenCase {
  id: string;
  files: string[];
  opts?: { val?: { temperature?: number; n?: number }; tag?: string };
  name?: string;
}

export const GOLDEN_CASES: GoldenCase[] = [
  { id: 'console', files: ['verl-console.txt'] },
  { id: 'console-val', files: ['verl-console.txt'], opts: { val: { temperature: 0.6, n: 4 } } },
  { id: 'wandb', files: ['wandb.csv'] },
  { id: 'wandb-val', files: ['wandb.csv'], opts: { val: { temperature: 1 } } },
  { id: 'tensorboard', files: ['run-grpo-qwen-7-tag-actor_entropy.csv'] },
  { id: 'tensorboard-tag', files: ['run-grpo-qwen-7-tag-actor_entropy.csv'], opts: { tag: 'my/tag' } },
  { id: 'long', files: ['long.csv'] },
  { id: 'jsonl', files: ['metrics.jsonl'] },
  { id: 'merged', files: ['verl-console.txt', 'wandb.csv', 'long.csv'] },
  { id: 'merged-tb', files: ['run-grpo-qwen-7-tag-actor_entropy.csv', 'metrics.jsonl'] },
  { id: 'key-order', files: ['key-order.jsonl'] },
  { id: 'key-order-merged', files: ['key-order.jsonl', 'long.csv', 'wandb.csv'] },
  { id: 'real-upstream', files: ['real-logs/upstream-v0.4-gsm8k.txt'] },
  { id: 'real-project', files: ['real-logs/verl-sglang-project.txt'] },
  { id: 'real-fork', files: ['real-logs/skywork-or1-fork.txt'] },
];
