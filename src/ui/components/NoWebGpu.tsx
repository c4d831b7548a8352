/** The page shown when neither engine works here (or the one chosen in the link does not). */
export function NoWebGpu({ reason }: { reason: string }) {
  return (
    <section data-testid="no-webgpu" className="no-webgpu">
      <h2>No engine to train on</h2>
      <p>{reason}</p>
      <p>
        MAGIC Lab trains on your GPU through WebGPU, and without one on its CPU engine (WebAssembly SIMD, in every current browser). WebGPU works in Chrome or Edge
        113+ (desktop), Chrome on Android 121+, Safari 26+ and Firefox 141+; on Linux, start Chromium with <code>--enable-unsafe-webgpu</code>. A link with{' '}
        <code>backend=webgpu</code> asks for WebGPU only: <a href="?">open the lab with the automatic choice</a>.
      </p>
    </section>
  );
}
