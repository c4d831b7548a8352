import { setBackend } from '../lab';
import { useLab } from '../store';
import type { BackendChoice, EngineSummary } from '../../worker/protocol';

const CHOICES: { value: BackendChoice; label: string }[] = [
  { value: 'auto', label: 'Auto (GPU when it is a real one)' },
  { value: 'webgpu', label: 'WebGPU' },
  { value: 'wasm', label: 'CPU engine (WebAssembly SIMD)' },
];

/** The engine the lab trains on, a switch between engines, and the GPU adapter's limits when it is WebGPU. */
export function DeviceInfo({ engine }: { engine: EngineSummary }) {
  const choice = useLab((s) => s.backendChoice);
  // Switching stops the live run; a running one must be paused or stopped first.
  const busy = useLab((s) => s.runState === 'running' || s.runState === 'starting');
  return (
    <section className="panel device" data-testid="adapter" data-backend={engine.backend}>
      <h2>Engine</h2>
      <label className="engine-choice">
        Train on{' '}
        <select data-testid="backend-select" value={choice} disabled={busy} title={busy ? 'Pause or stop the run to switch engines' : undefined} onChange={(e) => setBackend(e.target.value as BackendChoice)}>
          {CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <p data-testid="adapter-name" className="adapter-name">
        {engine.description}
      </p>
      {engine.note && (
        <p className="hint" data-testid="engine-note">
          {engine.note}
        </p>
      )}
      {engine.adapter?.isSoftware && <p className="hint">Software adapter (no GPU acceleration): training is slow; the CPU engine is faster here.</p>}
      {engine.adapter && (
        <table>
          <tbody>
            {Object.entries(engine.adapter.limits).map(([k, v]) => (
              <tr key={k}>
                <td>{k}</td>
                <td className="num">{v.toLocaleString('en-US')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
