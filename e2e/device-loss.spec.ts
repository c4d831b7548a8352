/**
 * A GPU process crash in the middle of a run (issue #13). The fault is the real one: the test
 * kills Chromium's GPU process (SIGKILL), which loses every WebGPU device of the page — the
 * Worker's included — with reason "unknown". Nothing in the app is a test hook. The page must
 * say what happened, resume the run from its last checkpoint on a new device, carry it past the
 * loss to its end with one record per step, and start a second run in the same page; when the
 * browser opens no new device, the page says what to do and the CPU engine resumes the run.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config';
import { openLab, stepOf, waitForState, waitForStep } from './helpers';

/** The GPU processes among `root`'s descendants (Linux /proc). */
function gpuProcesses(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid …; comm may hold spaces or parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const mine = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (mine.has(ppid) && !mine.has(pid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  return [...mine].filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=gpu-process');
    } catch {
      return false;
    }
  });
}

/** A browser of our own (so that the GPU process killed is this test's), and a page on the lab. */
async function ownBrowser() {
  const server = await chromium.launchServer({ executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', ...CHROMIUM_ARGS] });
  const browser = await chromium.connect(server.wsEndpoint());
  const page = await browser.newPage();
  // magic-tiny on WebGPU (SwiftShader here) with stages of 4 and 36 steps and no periodic
  // checkpoint: the one checkpoint before the end is the stage boundary's, at step 4.
  const stages = encodeURIComponent(JSON.stringify([{ maxResponseLength: 16, steps: 4 }, { maxResponseLength: 24, steps: 36 }]));
  await openLab(page, `/?preset=magic-tiny&stages=${stages}&checkpoint.everySteps=0&backend=webgpu`);
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'webgpu', { timeout: 60_000 });
  return {
    page,
    crashGpu: () => {
      const gpu = gpuProcesses(server.process().pid!);
      expect(gpu.length).toBeGreaterThan(0);
      for (const pid of gpu) process.kill(pid, 'SIGKILL');
    },
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

test('the GPU process dies mid-run: the page says so, the run resumes from its checkpoint and finishes; a second run works; with no new device, the CPU engine takes it over', async () => {
  test.setTimeout(420_000);
  const { page, crashGpu, close } = await ownBrowser();
  try {
    await page.getByTestId('play').click();
    await waitForStep(page, 6, 120_000);

    crashGpu();

    const banner = page.getByTestId('device-lost');
    await expect(banner).toBeVisible({ timeout: 60_000 });
    await expect(banner).toHaveAttribute('data-phase', 'recovered', { timeout: 90_000 });
    const text = ((await banner.locator('span').textContent()) ?? '').trim();
    const m = /^The GPU device was lost \(reason unknown[^)]*\) after step (\d+); resumed from the checkpoint at step 4 — steps 5–(\d+) are re-run\.$/.exec(text);
    expect(m, text).not.toBeNull();
    const lostAt = Number(m![1]);
    expect(lostAt).toBeGreaterThanOrEqual(6);
    expect(Number(m![2])).toBe(lostAt);
    // The Engine panel shows the new device; the run goes past the loss to its end, one record per step.
    await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'webgpu');
    await waitForStep(page, lostAt + 1, 120_000);
    await waitForState(page, 'done', 180_000);
    await expect(page.getByTestId('step-counter')).toHaveText('40');
    await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-points', '40', { timeout: 10_000 });
    await expect(page.getByTestId('status-message')).toContainText('resumed from the checkpoint at step 4');

    // A second run in the same page works: the Worker kept no dead device.
    await page.getByTestId('device-lost').getByTitle('Dismiss').click();
    await page.getByTestId('reset').click();
    await waitForState(page, 'idle');
    await page.getByTestId('play').click();
    await waitForStep(page, 5, 120_000);
    await expect(page.getByTestId('error')).toHaveCount(0);

    // Chromium itself gives up on the GPU after repeated GPU process crashes (here: no adapter for
    // the page after the 2nd): crash it until the Worker's attempts find none. The page must say
    // so and what to do, and the CPU engine takes the run over from its checkpoint.
    await page.getByTestId('pause').click();
    await waitForState(page, 'paused');
    let failed = false;
    for (let crash = 2; crash <= 5 && !failed; crash++) {
      const at = await stepOf(page);
      crashGpu();
      await expect(banner).toHaveAttribute('data-phase', /recovered|failed/, { timeout: 120_000 });
      failed = (await banner.getAttribute('data-phase')) === 'failed';
      if (failed) {
        await expect(banner.locator('span')).toHaveText(
          new RegExp(
            `^The GPU device was lost \\(reason unknown[^)]*\\) after step ${at}, and no new GPU device after 4 attempts \\(WebGPU is not available: .*\\)\\. The run stopped; its checkpoint at step 4 is kept in this browser: Load it \\(Checkpoints\\) or resume it from the Runs panel once the GPU works again — reload the page if it does not, or choose the CPU engine\\.$`,
          ),
        );
        await waitForState(page, 'error');
      } else {
        await waitForState(page, 'paused');
        await banner.getByTitle('Dismiss').click();
      }
    }
    expect(failed).toBe(true);
    await page.getByTestId('backend-select').selectOption('wasm');
    await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'wasm', { timeout: 60_000 });
    await page.getByTestId('checkpoint-load').click();
    await waitForState(page, 'paused');
    await expect(page.getByTestId('step-counter')).toHaveText('4');
    await page.getByTestId('step').click();
    await expect(page.getByTestId('step-counter')).toHaveText('5', { timeout: 60_000 });
    await expect(page.getByTestId('error')).toHaveCount(0);
  } finally {
    await close();
  }
});

test('the GPU process dies while the run is paused: the Worker recovers at once, and the next step continues from the checkpoint', async () => {
  test.setTimeout(300_000);
  const { page, crashGpu, close } = await ownBrowser();
  try {
    await page.getByTestId('play').click();
    await waitForStep(page, 5, 120_000);
    await page.getByTestId('pause').click();
    await waitForState(page, 'paused');
    const at = await stepOf(page);
    crashGpu();
    const banner = page.getByTestId('device-lost');
    await expect(banner).toHaveAttribute('data-phase', 'recovered', { timeout: 90_000 });
    await expect(banner.locator('span')).toHaveText(
      new RegExp(`^The GPU device was lost \\(reason unknown[^)]*\\) after step ${at}; resumed from the checkpoint at step 4 — (steps 5–${at} are re-run|step 5 is re-run)\\.$`),
    );
    await waitForState(page, 'paused');
    await expect(page.getByTestId('step-counter')).toHaveText('4');
    await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-points', '4', { timeout: 10_000 });
    await page.getByTestId('step').click();
    await expect(page.getByTestId('step-counter')).toHaveText('5', { timeout: 60_000 });
    await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-points', '5', { timeout: 10_000 });
    await expect(page.getByTestId('error')).toHaveCount(0);
  } finally {
    await close();
  }
});
