import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Cross-origin isolation, so the page and its Worker get SharedArrayBuffer: the CPU engine's
// threads share one WebAssembly memory (without it the engine falls back to one thread). A static
// host that sends no headers gets them from the page's service worker (public/coi-sw.js).
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

const SW = 'coi-sw.js';
const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

/**
 * The files the service worker precaches: the whole build but the bases of on-demand rungs (the
 * medium base, megabytes a classroom should not download unasked; the page fetches it with a
 * progress bar when the rung is picked, into a Cache Storage cache of its own).
 */
export function precachedFiles(files: readonly string[]): string[] {
  return files.filter((f) => f !== SW && !ON_DEMAND_FILES.includes(f));
}

/**
 * The on-demand rungs' bases (`delivery: 'on-demand'` in src/rl/config/rungs.ts). Written out here
 * because the config cannot import src/ (its loader warns on extensionless imports);
 * tests/build/precache.test.ts fails when this list and the rungs disagree.
 */
export const ON_DEMAND_FILES: readonly string[] = ['checkpoints/base-medium.mlck'];

/**
 * After `vite build`: writes the build's version (a hash of every file) and file list into
 * dist/coi-sw.js, so the service worker precaches exactly this build in a cache of its own, and
 * says where to upload dist/.
 */
function publish(): Plugin {
  let outDir = 'dist';
  return {
    name: 'magic-lab-publish',
    apply: 'build',
    configResolved(c) {
      outDir = resolve(c.root, c.build.outDir);
    },
    closeBundle: {
      order: 'post',
      handler() {
        const files = precachedFiles(filesUnder(outDir).map((f) => relative(outDir, f).split('\\').join('/'))).sort();
        const hash = createHash('sha256');
        for (const f of files) hash.update(f).update(readFileSync(join(outDir, f)));
        const build = { version: hash.digest('hex').slice(0, 12), files };
        const sw = join(outDir, SW);
        const src = readFileSync(sw, 'utf8');
        const out = src.replace(/^const BUILD = .*;$/m, `const BUILD = ${JSON.stringify(build)};`);
        if (out === src) throw new Error(`${SW}: the "const BUILD = …;" line is missing, so the service worker cannot know this build's files`);
        writeFileSync(sw, out);
        const shown = relative(process.cwd(), outDir) || '.';
        console.log(
          `\nMAGIC Lab built into ${shown}/ (version ${build.version}, ${files.length} files).\n` +
            `Publish it: upload everything in ${shown}/ to any static host, at the site root or any sub-path\n` +
            `(GitHub Pages, Netlify, a school web server, \`npx serve ${shown}\`); no special headers are needed.\n` +
            `Try it here first: npm run preview\n`,
        );
      },
    },
  };
}

export default defineConfig({
  // Relative URLs: one build works at the site root or under any sub-path (/lab/, a Pages project site).
  base: './',
  plugins: [react(), publish()],
  worker: { format: 'es' },
  server: { headers: isolation },
  preview: { headers: isolation },
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    environment: 'node',
    // One Dawn device per worker process; SwiftShader is CPU-bound so two forks is the most a 2-core box gains from.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The CLI caches its timed matmul-variant choice under $XDG_CACHE_HOME; tests keep theirs out of the user's.
    env: { XDG_CACHE_HOME: join(tmpdir(), 'magic-lab-test-cache') },
  },
});
