import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { registerServiceWorker, reloadExpected } from './lib/service-worker';
import './style.css';

const render = () =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );

// A built page that is not cross-origin isolated yet reloads once its service worker takes
// control: wait a few seconds for that before starting the engine, rather than start it twice.
const registered = registerServiceWorker();
if (reloadExpected()) void Promise.race([registered, new Promise((r) => setTimeout(r, 5000))]).then(render);
else render();
