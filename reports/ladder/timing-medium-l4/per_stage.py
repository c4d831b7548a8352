"""The README's per-stage table from this run's metrics: python3 per_stage.py [metrics.jsonl.gz]"""
import gzip, json, sys

rows = [json.loads(l) for l in gzip.open(sys.argv[1] if len(sys.argv) > 1 else 'metrics.jsonl.gz', 'rt')]
steps = [r for r in rows if r['type'] == 'step']
evals = [r for r in rows if r['type'] == 'eval']
mean = lambda xs: sum(xs) / len(xs)
for stage in sorted({r['stage'] for r in steps}):
    s = [r for r in steps if r['stage'] == stage]
    first = s[:10]
    print(f"stage {stage + 1}: {len(s)} steps, {sum(r['perf/step_s'] for r in s) / 60:.1f} min of steps, "
          f"{mean([r['perf/step_s'] for r in s]):.2f} s a step (sampling {mean([r['timing_s/gen'] for r in s]):.2f}, "
          f"update {mean([r['timing_s/update_actor'] for r in s]):.2f}); truncated {100 * mean([r['response_length/clip_ratio'] for r in first]):.1f}% "
          f"over its first 10 steps, {100 * mean([r['response_length/clip_ratio'] for r in s]):.1f}% over the stage; mean length "
          f"{mean([r['response_length/mean'] for r in first]):.0f} / {mean([r['response_length/mean'] for r in s]):.0f}")
print(f"{len(steps)} steps: {steps[-1]['time_ms'] / 60000:.1f} min of steps; {len(evals)} evaluations")
for e in evals:
    print(f"  step {e['step']:3d}: held-out avg@8 {100 * e['val/avg@8/t1.0']:.1f}%, pass@8 {100 * e['val/pass@8/t1.0']:.1f}% (tau 1.0)")
