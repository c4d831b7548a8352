import { useEffect } from 'react';
import { Banners } from './components/Banners';
import { Charts } from './components/Charts';
import { CheckpointPanel } from './components/CheckpointPanel';
import { ConfigPanel } from './components/ConfigPanel';
import { Controls } from './components/Controls';
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
import { useLab } from './store';

/** Single page, TensorFlow-Playground style: controls left, charts centre, runs and device right. */
export function App() {
  const device = useLab((s) => s.device);
  const view = useLab((s) => s.view);
  // Teacher mode (lib/teach.ts): hidden controls are not rendered at all.
  const teacher = useLab((s) => s.teacher);
  const shown = shownFor(useLab((s) => s.hidden));
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
    <main className="lab">
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
      </header>
      <Banners />
      <RunAccessBanner />
      {teacher && <TeacherBar />}
      {device.status === 'no-engine' || device.status === 'error' ? (
        <NoWebGpu reason={device.status === 'no-engine' ? device.reason : device.message} />
      ) : (
        <div className="layout">
          <aside className="left" aria-label="Run controls, stages and configuration">
            <Controls />
            {shown('presets') && (
              <section className="panel">
                <PresetPicker />
              </section>
            )}
            {shown('stages') && <StageEditor />}
            {shown('config') && <ConfigPanel />}
          </aside>
          <div className="centre">
            {(shown('explainer') || shown('try')) && (
              <div className="learn">
                {shown('explainer') && <Explainer />}
                {shown('try') && <TryThis />}
              </div>
            )}
            <ViewTabs />
            {view === 'findings' && shown('findings') ? (
              <FindingsView />
            ) : (
              <>
                {shown('timeline') && <StageTimeline />}
                <Charts />
                {shown('rollouts') && <RolloutViewer />}
              </>
            )}
          </div>
          <aside className="right" aria-label="Runs, checkpoints and engine">
            {shown('runs') && <RunsPanel />}
            {shown('checkpoints') && <CheckpointPanel />}
            {device.status === 'ready' && shown('engine') && <DeviceInfo engine={device.engine} />}
          </aside>
        </div>
      )}
    </main>
  );
}
