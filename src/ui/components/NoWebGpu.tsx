/** The page shown when the browser has no usable WebGPU. */
export function NoWebGpu({ reason }: { reason: string }) {
  return (
    <section data-testid="no-webgpu" className="no-webgpu">
      <h2>WebGPU is not available</h2>
      <p>{reason}</p>
      <p>
        MAGIC Lab trains on your GPU through WebGPU. It works in Chrome or Edge 113+ (desktop), Chrome on Android 121+, Safari 26+ and Firefox 141+. On Linux, start
        Chromium with <code>--enable-unsafe-webgpu</code>; make sure hardware acceleration is on.
      </p>
    </section>
  );
}
