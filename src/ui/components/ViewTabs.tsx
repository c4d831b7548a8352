import { replaceSearch } from '../controller/url-sync';
import { withBenchView } from '../lib/view';
import { useLab, type LabView } from '../store';

const VIEWS: { id: LabView; label: string; title: string }[] = [
  { id: 'training', label: 'Training', title: 'Stage timeline, live training curves and the rollout viewer' },
  { id: 'findings', label: 'Findings', title: "The paper's findings: claims, reference curves over seeds, verdicts; run one here" },
  { id: 'bench', label: 'Benchmark', title: "This engine's speed: matmul GFLOP/s, train-step and sampling tokens/s, efficiency against the CPU's peak; JSON export" },
];

/** Switches the centre column between the training curves, the Findings view and the Benchmark view (view=bench in the URL). */
export function ViewTabs() {
  const view = useLab((s) => s.view);
  const setView = useLab((s) => s.setView);
  const queue = useLab((s) => s.queue);
  // Teacher mode may leave the Findings and Benchmark tabs out (hide=findings, hide=bench).
  const hidden = useLab((s) => s.hidden);
  const show = (v: LabView) => {
    setView(v);
    replaceSearch(withBenchView(location.search, v === 'bench'));
  };
  return (
    <nav className="view-tabs" role="tablist">
      {VIEWS.filter((v) => v.id === 'training' || !hidden.includes(v.id)).map((v) => (
        <button key={v.id} role="tab" aria-selected={view === v.id} className={view === v.id ? 'on' : ''} onClick={() => show(v.id)} data-testid={`view-${v.id}`} title={v.title}>
          {v.label}
          {v.id === 'findings' && queue?.status === 'running' && <span className="tag">queue</span>}
        </button>
      ))}
    </nav>
  );
}
