import { Fragment, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { registerServiceWorker, reloadExpected } from './lib/service-worker';
import './style.css';

// StrictMode (development only: it renders every component twice to catch impure renders) is
// opt-in, VITE_STRICT_MODE=1: on the dev server it doubled the cost of every per-step render, and
// `npm start` trained markedly slower than the built page (BENCHMARKS.md).
// e2e/start.spec.ts runs its dev server with it on, so double-effect bugs are still caught there.
const Root = import.meta.env.VITE_STRICT_MODE === '1' ? StrictMode : Fragment;
const render = () =>
  createRoot(document.getElementById('root')!).render(
    <Root>
      <App />
    </Root>,
  );

// A built page that is not cross-origin isolated yet reloads once its service worker takes
// control: wait a few seconds for that before starting the engine, rather than start it twice.
const registered = registerServiceWorker();
if (reloadExpected()) void Promise.race([registered, new Promise((r) => setTimeout(r, 5000))]).then(render);
else render();
