import { runBench } from '../lab';
import { benchModelPreview, benchRows, describeBenchModel, formatBenchValue, type BenchExport } from '../lib/bench';
import { downloadBlob, safeFileName } from '../lib/download';
import { useLab } from '../store';

/**
 * The Benchmark view: `magic-lab bench`'s measurement on the engine this page runs (the Worker's
 * `bench`) of the model of the rung the page is on (named in the table and the JSON), with progress, a table of results and the JSON download (schema: BENCHMARKS.md, "In the page").
 */
export function BenchView() {
  const device = useLab((s) => s.device);
  const bench = useLab((s) => s.bench);
  const ready = device.status === 'ready';
  const running = bench.status === 'running';
  const draft = useLab((s) => s.draft);
  const preset = useLab((s) => s.preset);
  return (
    <section className="panel bench-view" data-testid="bench-view" aria-label="Benchmark">
      <h2>Benchmark</h2>
      <p className="hint">
        Times this engine ({ready ? device.engine.description : 'not open yet'}) on the model of the rung the page is on (
        <span data-testid="bench-model-next">{benchModelPreview(draft, preset)}</span>), as <code>magic-lab bench</code> does on its own bench model: the matmul at
        each of the train step's shapes (and, on WebGPU, each kernel variant and the one chosen), a full train step and batched sampling; on the CPU
        engine also its f32x4 peak, and each figure as a share of it. Attention, norms and softmax are timed inside the train step and sampling, not
        one by one. Quick takes seconds to a minute; thorough uses the CLI's batch and step count. A run in progress pauses between its steps while
        it measures.
      </p>
      <div className="row">
        <button onClick={() => runBench('quick')} disabled={!ready || running} data-testid="bench-run">
          Run benchmark
        </button>
        <button onClick={() => runBench('thorough')} disabled={!ready || running} data-testid="bench-run-thorough">
          Run thorough
        </button>
        {bench.status === 'done' && <DownloadButton result={bench.result} />}
      </div>
      {running && (
        <p data-testid="bench-progress" aria-live="polite">
          <progress value={bench.done} max={bench.total} /> {bench.mode}: {bench.phase} ({bench.done}/{bench.total})
        </p>
      )}
      {bench.status === 'error' && (
        <p className="error" data-testid="bench-error">
          The benchmark failed: {bench.message}
        </p>
      )}
      {bench.status === 'done' && <BenchTable result={bench.result} />}
    </section>
  );
}

function DownloadButton({ result }: { result: BenchExport }) {
  const save = () => {
    const name = safeFileName(`magic-lab-bench-${result.backend}-${result.measured_at}`);
    downloadBlob(new Blob([JSON.stringify(result, null, 2) + '\n'], { type: 'application/json' }), `${name}.json`);
  };
  return (
    <button onClick={save} data-testid="bench-download">
      Download JSON
    </button>
  );
}

function BenchTable({ result }: { result: BenchExport }) {
  return (
    <table className="checks bench-table" data-testid="bench-table">
      <caption>
        {result.adapter} · {result.mode} · <span data-testid="bench-model">{describeBenchModel(result.model, result.params)}</span> · measured {new Date(result.measured_at).toLocaleString()}
      </caption>
      <thead>
        <tr>
          <th scope="col">family</th>
          <th scope="col">measure</th>
          <th scope="col">value</th>
          <th scope="col">note</th>
        </tr>
      </thead>
      <tbody>
        {benchRows(result).map((r) => (
          <tr key={r.path} data-testid="bench-row" data-path={r.path} data-value={String(r.value)}>
            <td>{r.family}</td>
            <td>{r.label}</td>
            <td className="num">{formatBenchValue(r)}</td>
            <td>{r.note ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
