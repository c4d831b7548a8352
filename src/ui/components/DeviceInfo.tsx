import type { AdapterSummary } from '../../gpu/runtime';

/** The adapter's name, whether it is a software fallback, and its limits. */
export function DeviceInfo({ adapter }: { adapter: AdapterSummary }) {
  return (
    <section className="panel device" data-testid="adapter">
      <h2>GPU</h2>
      <p data-testid="adapter-name" className="adapter-name">
        {adapter.description}
      </p>
      {adapter.isSoftware && <p className="hint">Software adapter (no GPU acceleration): training is slow; tiny presets recommended.</p>}
      <table>
        <tbody>
          {Object.entries(adapter.limits).map(([k, v]) => (
            <tr key={k}>
              <td>{k}</td>
              <td className="num">{v.toLocaleString('en-US')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
