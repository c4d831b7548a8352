import { useEffect } from 'react';
import { LabClient } from '../worker/client';
import { useLab } from './store';

export function App() {
  const device = useLab((s) => s.device);
  const setDevice = useLab((s) => s.setDevice);
  useEffect(() => {
    const client = new LabClient((m) => {
      if (m.type === 'ready') setDevice({ status: 'ready', adapter: m.adapter });
      else if (m.type === 'no-webgpu') setDevice({ status: 'no-webgpu', reason: m.reason });
      else if (m.type === 'error') setDevice({ status: 'error', message: m.message });
    });
    client.send({ type: 'init' });
    return () => client.terminate();
  }, [setDevice]);

  return (
    <main className="lab">
      <header>
        <h1>MAGIC Lab</h1>
        <p className="tagline">Train a small reasoning policy with reinforcement learning (Skywork-OR1's MAGIC recipe) on your own GPU.</p>
      </header>
      {device.status === 'starting' && <p data-testid="device-status">Starting WebGPU…</p>}
      {device.status === 'ready' && (
        <section data-testid="adapter">
          <h2>GPU</h2>
          <p data-testid="adapter-name">{device.adapter.description}</p>
          <table>
            <tbody>
              {Object.entries(device.adapter.limits).map(([k, v]) => (
                <tr key={k}>
                  <td>{k}</td>
                  <td>{v}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {(device.status === 'no-webgpu' || device.status === 'error') && (
        <section data-testid="no-webgpu" className="no-webgpu">
          <h2>WebGPU is not available</h2>
          <p>{device.status === 'no-webgpu' ? device.reason : device.message}</p>
          <p>
            MAGIC Lab trains on your GPU through WebGPU. It works in Chrome or Edge 113+ (desktop), Chrome on Android 121+, Safari 26+ and Firefox 141+. On Linux,
            start Chromium with <code>--enable-unsafe-webgpu</code>; make sure hardware acceleration is on.
          </p>
        </section>
      )}
    </main>
  );
}
