/**
 * Faults of a WebGPU device, as typed errors the layers above can act on: the device was lost
 * (DeviceLostError), or it reported an error nobody captured (GpuUncapturedError). Pure (no
 * WebGPU globals), so the trainer, the CLI and the Worker can test for them without a device.
 */

/** Why a GPUDevice was lost: GPUDeviceLostInfo as plain data (`unknown` for a crash or a driver reset, `destroyed` when destroyed). */
export interface DeviceLossInfo {
  reason: string;
  message: string;
}

/** "unknown: A valid external Instance reference no longer exists." — the reason and the browser's words, for messages. */
export function describeLoss(info: DeviceLossInfo): string {
  const msg = info.message.trim();
  return msg ? `${info.reason}: ${msg}` : info.reason;
}

/**
 * The GPU device is gone (GPUDevice.lost resolved: the browser's GPU process crashed or was
 * restarted, the driver was reset, the device was destroyed). Everything on it is lost; a new
 * adapter and device must be requested. Raised by every read of a runtime whose device was lost,
 * in place of the bare `mapAsync` AbortError the loss produces.
 */
export class DeviceLostError extends Error {
  readonly reason: string;
  readonly detail: string;
  constructor(readonly info: DeviceLossInfo) {
    super(`the GPU device was lost (${describeLoss(info)})`);
    this.name = 'DeviceLostError';
    this.reason = info.reason;
    this.detail = info.message;
  }
}

/** The kind of a GPUError reported to `uncapturederror`. */
export type GpuErrorKind = 'validation' | 'out-of-memory' | 'internal' | 'unknown';

export function gpuErrorKind(error: unknown): GpuErrorKind {
  const ctor = (error as { constructor?: { name?: string } } | null)?.constructor?.name ?? '';
  if (/Validation/.test(ctor)) return 'validation';
  if (/OutOfMemory/.test(ctor)) return 'out-of-memory';
  if (/Internal/.test(ctor)) return 'internal';
  return 'unknown';
}

/**
 * Errors the device reported through `uncapturederror` (a command the GPU rejected or could not
 * run), raised at the next sync or read instead of being dropped. `out-of-memory` and `internal`
 * are faults of the device, which a new device may not have (`isDeviceFault`); `validation` is a
 * bug in the commands, which a new device repeats.
 */
export class GpuUncapturedError extends Error {
  constructor(
    readonly kind: GpuErrorKind,
    readonly messages: string[],
  ) {
    super(`WebGPU error (${kind}): ${messages.join('\n')}`);
    this.name = 'GpuUncapturedError';
  }
}

/** A fault of the device rather than of the program: recover by opening a new device and resuming from the last checkpoint. */
export function isDeviceFault(e: unknown): e is DeviceLostError | GpuUncapturedError {
  return e instanceof DeviceLostError || (e instanceof GpuUncapturedError && (e.kind === 'out-of-memory' || e.kind === 'internal'));
}
