import { toHex, type ColourScale } from '../lib/colour';
import { FORK_FRACTION, FORK_MIN_NATS } from '../lib/inspector';

/** The colour scale's bar with ticks in the value's units, and the token marks. */
export function ColourLegend({ scale, forks, clipped }: { scale: ColourScale | null; forks: boolean; clipped: boolean }) {
  return (
    <div className="colour-legend" data-testid="colour-legend">
      {scale && (
        <div className="legend-scale" data-testid="legend-scale">
          <div className="legend-title">
            {scale.title} <span className="hint">({scale.unit})</span>
          </div>
          <div className="legend-bar" style={{ background: `linear-gradient(to right, ${scale.bar.map(toHex).join(', ')})` }} />
          <div className="legend-ticks">
            {scale.ticks.map((t, i) => (
              <span key={i} className="legend-tick num" style={{ left: `${t.at * 100}%` }} data-testid="legend-tick">
                {t.label}
              </span>
            ))}
          </div>
          <div className="hint small">{scale.note}</div>
        </div>
      )}
      <div className="legend-marks">
        {forks && (
          <span title={`The group's highest-entropy ${Math.round(FORK_FRACTION * 100)}% of tokens (H ≥ ${FORK_MIN_NATS} nats): where sampling could most easily have gone another way`}>
            <span className="legend-sample fork">7</span> forking token
          </span>
        )}
        {clipped && (
          <span title="The clip took this token's gradient at an off-policy update: ρ was past 1+ε_high with Â > 0, or below 1−ε_low with Â < 0">
            <span className="legend-sample clipped">7</span> clipped at the update
          </span>
        )}
        <span>
          <span className="legend-sample picked">7</span> click a token: the alternatives
        </span>
      </div>
    </div>
  );
}
