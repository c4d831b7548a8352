/** Browser file helpers: save a Blob, read a File, export a chart's SVG as PNG. */

export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name made of safe characters. */
export const safeFileName = (s: string) => s.replace(/[^a-zA-Z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'run';

/** An <svg> element's markup at its on-screen size, with `xmlns` and the page's font for its text (the chart PNG nests it: chartpng.ts). */
export function serializeSvg(svg: SVGSVGElement): { xml: string; width: number; height: number } {
  const { width, height } = svg.getBoundingClientRect();
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = 'text { font-family: system-ui, sans-serif; font-size: 11px; }';
  clone.insertBefore(style, clone.firstChild);
  return { xml: new XMLSerializer().serializeToString(clone), width, height };
}

/**
 * Serialises an <svg> (with its computed size and a white background) to a PNG Blob through a
 * canvas, at `scale`× resolution.
 */
export async function svgToPngBlob(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const { xml, width, height } = serializeSvg(svg);
  return svgMarkupToPngBlob(xml, width, height, scale);
}

/** Rasterises SVG markup of `width` × `height` to a PNG Blob (white background) at `scale`× resolution. */
export async function svgMarkupToPngBlob(xml: string, width: number, height: number, scale = 2): Promise<Blob> {
  const img = new Image();
  const url = URL.createObjectURL(new Blob([xml], { type: 'image/svg+xml;charset=utf-8' }));
  try {
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('could not render the chart SVG'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('canvas export failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
