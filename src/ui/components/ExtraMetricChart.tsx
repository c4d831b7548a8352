import { memo, useMemo, useState } from 'react';
import type { ChartSpec, MetricKeyRef } from '../lib/chartdata';
import type { RunData } from '../../io/runfile';
import { useLab } from '../store';
import { MetricChart } from './MetricChart';

const refId = (k: MetricKeyRef) => `${k.source}:${k.key}`;

/**
 * "More metrics": one chart of a metric no other chart draws, picked from the keys of the
 * drawn runs (an imported cluster run keeps every key it logged). Shown only when a drawn run
 * has such keys (extraMetricKeys). Memoised: its picker and log toggle are new each render, so an
 * unchanged grid must not render it (Charts keeps `keys` and `boundaries` by content).
 */
export const ExtraMetricChart = memo(function ExtraMetricChart({ keys, runs, smoothing, boundaries }: { keys: MetricKeyRef[]; runs: RunData[]; smoothing: number; boundaries: { step: number; stage: number }[] }) {
  const [chosen, setChosen] = useState<string | null>(null);
  const current = keys.find((k) => refId(k) === chosen) ?? keys[0];
  const log = useLab((s) => !!s.logScale.extra);
  const toggleLog = useLab((s) => s.toggleLog);
  const spec = useMemo<ChartSpec>(
    () => ({
      id: 'extra',
      title: 'More metrics',
      help: 'A metric no other chart draws (an imported run keeps every key it logged): pick it in the list.',
      series: [{ key: current.key, label: current.key, source: current.source }],
      log: true,
    }),
    [current.key, current.source],
  );
  const picker = (
    <select className="extra-metric" value={refId(current)} onChange={(e) => setChosen(e.target.value)} data-testid="extra-metric" title="Metric to draw" aria-label="Metric to draw">
      {keys.map((k) => (
        <option key={refId(k)} value={refId(k)}>
          {k.source === 'eval' ? `${k.key} (eval)` : k.key}
        </option>
      ))}
    </select>
  );
  return <MetricChart spec={spec} runs={runs} smoothing={smoothing} log={log} onToggleLog={() => toggleLog('extra')} boundaries={boundaries} entropyTarget={null} picker={picker} />;
});
