import { useLab, type LabView } from '../store';

const VIEWS: { id: LabView; label: string; title: string }[] = [
  { id: 'training', label: 'Training', title: 'Stage timeline, live training curves and the rollout viewer' },
  { id: 'findings', label: 'Findings', title: "The paper's findings: claims, reference curves over seeds, verdicts; run one here" },
];

/** Switches the centre column between the training curves and the Findings view. */
export function ViewTabs() {
  const view = useLab((s) => s.view);
  const setView = useLab((s) => s.setView);
  const queue = useLab((s) => s.queue);
  // Teacher mode may leave the Findings tab out (hide=findings).
  const hideFindings = useLab((s) => s.hidden.includes('findings'));
  return (
    <nav className="view-tabs" role="tablist">
      {VIEWS.filter((v) => !(hideFindings && v.id === 'findings')).map((v) => (
        <button key={v.id} role="tab" aria-selected={view === v.id} className={view === v.id ? 'on' : ''} onClick={() => setView(v.id)} data-testid={`view-${v.id}`} title={v.title}>
          {v.label}
          {v.id === 'findings' && queue?.status === 'running' && <span className="tag">queue</span>}
        </button>
      ))}
    </nav>
  );
}
