import { useEffect, useLayoutEffect } from 'react';
import { Banners } from './components/Banners';
import { Charts } from './components/Charts';
import { BenchView } from './components/BenchView';
import { CheckpointPanel } from './components/CheckpointPanel';
import { ConfigPanel } from './components/ConfigPanel';
import { Controls } from './components/Controls';
import { CoverageLesson } from './components/CoverageLesson';
import { DeviceInfo } from './components/DeviceInfo';
import { Explainer } from './components/Explainer';
import { FindingsView } from './components/FindingsView';
import { NoWebGpu } from './components/NoWebGpu';
import { PresetPicker } from './components/PresetPicker';
import { RolloutViewer } from './components/RolloutViewer';
import { RunAccessBanner } from './components/RunAccessBanner';
import { RunsPanel } from './components/RunsPanel';
import { StageEditor } from './components/StageEditor';
import { StageTimeline } from './components/StageTimeline';
import { TeacherBar } from './components/TeacherBar';
import { TryThis } from './components/TryThis';
import { ViewTabs } from './components/ViewTabs';
import { startLab } from './lab';
import { shownFor } from './lib/teach';
import { benchViewFromUrl, projectorFromUrl, withProjector } from './lib/view';
import { useLab } from './store';

/**
 * Single page, TensorFlow-Playground style: controls left, charts centre, runs and device right.
 * The run controls are their own grid area so a phone can show them, then the charts, then the
 * presets, stages and configuration (style.css); a side column with nothing shown is not drawn.
 */
export function App() {
  const device = useLab((s) => s.device);
  const view = useLab((s) => s.view);
  // Teacher mode (lib/teach.ts): hidden controls are not rendered at all.
  const teacher = useLab((s) => s.teacher);
  const shown = shownFor(useLab((s) => s.hidden));
  // view=projector: large chart text and thick lines for a classroom screen (lib/view.ts, style.css).
  const projector = useLab((s) => s.projector);
  const setProjector = useLab((s) => s.setProjector);
  useLayoutEffect(() => setProjector(projectorFromUrl(location.search)), [setProjector]);
  // view=bench opens the Benchmark view (components/ViewTabs.tsx keeps the URL in step).
  const setView = useLab((s) => s.setView);
  useLayoutEffect(() => {
    if (benchViewFromUrl(location.search)) setView('bench');
  }, [setView]);
  const toggleProjector = () => {
    const on = !projector;
    setProjector(on);
    const search = withProjector(location.search, on);
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
  };
  const engineShown = device.status === 'ready' && shown('engine');
  const rightShown = shown('runs') || shown('checkpoints') || engineShown;
  const leftShown = shown('presets') || shown('stages') || shown('config');
  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    void startLab().then((f) => (cancelled ? f() : (stop = f)));
    return () => {
      cancelled = true;
      stop?.();
    };
  }, []);

  return (
    <main className={`lab${projector ? ' projector' : ''}`}>
      <header className="top">
        <div>
          <h1>MAGIC Lab</h1>
          <p className="tagline">Train a small reasoning policy with reinforcement learning (Skywork-OR1's MAGIC recipe) in your browser, on your own GPU or CPU.</p>
        </div>
        {device.status === 'starting' && (
          <p data-testid="device-status" className="hint">
            Starting the engine…
          </p>
        )}
        <span className="spacer" />
        <button className={`mini view-toggle${projector ? ' on' : ''}`} aria-pressed={projector} onClick={toggleProjector} data-testid="projector-toggle" title="Projector view: large chart text and thick lines (view=projector in the link)">
          Projector view
        </button>
      </header>
      <Banners />
      <RunAccessBanner />
      {teacher && <TeacherBar />}
      {device.status === 'no-engine' || device.status === 'error' ? (
        <NoWebGpu reason={device.status === 'no-engine' ? device.reason : device.message} />
      ) : (
        <div className={`layout${rightShown ? '' : ' no-right'}`}>
          <div className="run-controls">
            <Controls />
          </div>
          {leftShown && (
            <aside className="left" aria-label="Presets, stages and configuration">
              {shown('presets') && (
                <section className="panel">
                  <PresetPicker />
                </section>
              )}
              {shown('stages') && <StageEditor />}
              {shown('config') && <ConfigPanel />}
            </aside>
          )}
          <div className="centre">
            {(shown('explainer') || shown('try') || shown('coverage')) && (
              <div className="learn">
                {shown('explainer') && <Explainer />}
                {shown('try') && <TryThis />}
                {shown('coverage') && <CoverageLesson />}
              </div>
            )}
            <ViewTabs />
            {view === 'bench' && shown('bench') ? (
              <BenchView />
            ) : view === 'findings' && shown('findings') ? (
              <FindingsView />
            ) : (
              <>
                {shown('timeline') && <StageTimeline />}
                <Charts />
                {shown('rollouts') && <RolloutViewer />}
              </>
            )}
          </div>
          {rightShown && (
            <aside className="right" aria-label="Runs, checkpoints and engine">
              {shown('runs') && <RunsPanel />}
              {shown('checkpoints') && <CheckpointPanel />}
              {engineShown && device.status === 'ready' && <DeviceInfo engine={device.engine} />}
            </aside>
          )}
        </div>
      )}
    </main>
  );
}
