import { useLab } from '../store';

export function SmoothingSlider() {
  const smoothing = useLab((s) => s.smoothing);
  const setSmoothing = useLab((s) => s.setSmoothing);
  return (
    <label className="smoothing" title="Exponential moving average of the measured step metrics (debiased, as TensorBoard); evaluations and step-exact values (α, c, group counts, η) are drawn as they are">
      smoothing
      <input type="range" min={0} max={0.99} step={0.01} value={smoothing} onChange={(e) => setSmoothing(Number(e.target.value))} data-testid="smoothing" />
      <span className="num">{smoothing.toFixed(2)}</span>
    </label>
  );
}
