#!/bin/sh
# .device/run.sh (written by `npm run device:bundle` from scripts/device-run.sh): the GPU checks of a
# device machine, from the repository root of a bare copy plus .device/ — no node_modules, nothing on
# PATH but a shell and the base tools (sh, xz, tar, mkdir). Results are JSON under $OUT (default ./device-out):
#
#   env.json            machine, driver, Vulkan set-up, the adapter Dawn found
#   gradcheck.json      every WebGPU kernel and the whole policy against the float64 reference
#   bench-RUNG.json     the engine benchmark per rung (train step, RL step, sampling), WebGPU
#   matmul-RUNG-VARIANT.json  the same benchmark with each matmul kernel forced
#   magic-RUNG.json     a 100-step `magic` run per rung: seconds per step and per phase (timing_s/*)
#   peers.json          the in-page peers where a browser and the page's packages can be had, else why not
#   summary.json        each step's command, exit status and seconds
#
#   bash .device/run.sh            everything (tens of minutes on a GPU; hours on SwiftShader)
#   bash .device/run.sh --quick    gradcheck, the tiny rung's benchmark and a 5-step run: seconds on a GPU
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
cd "$ROOT"
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
OUT=${OUT:-$ROOT/device-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-runtime-$(id -u 2>/dev/null || echo user)}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR" 2>/dev/null

fail() { echo "run.sh: $1" >&2; exit 2; }
command -v xz >/dev/null 2>&1 || fail 'needs xz (xz-utils) to unpack Node and Dawn'

# Node and Dawn, unpacked once beside the bundle (.device/node_modules is where the bundled CLI finds `webgpu`).
if [ ! -x "$HERE/bin/node" ]; then
  mkdir -p "$HERE/bin"
  xz -dc "$HERE/node.xz" > "$HERE/bin/node.tmp" && chmod +x "$HERE/bin/node.tmp" && mv "$HERE/bin/node.tmp" "$HERE/bin/node" || fail 'could not unpack node.xz'
fi
DAWN="$HERE/node_modules/webgpu/dist/linux-x64/dawn.node"
if [ ! -f "$DAWN" ]; then
  mkdir -p "$(dirname "$DAWN")"
  cp "$HERE/webgpu/index.js" "$HERE/webgpu/package.json" "$HERE/node_modules/webgpu/"
  xz -dc "$HERE/dawn.node.xz" > "$DAWN.tmp" && mv "$DAWN.tmp" "$DAWN" || fail 'could not unpack dawn.node.xz'
fi
NODE="$HERE/bin/node"
CLI="$HERE/lib/magic-lab.mjs"

# Vulkan: the machine's loader when it has one, else Debian's, carried here. NVIDIA's driver brings
# the ICD; where its JSON is missing but the driver's library is there, one is written for it.
VULKAN_NOTE='system loader'
has_loader() {
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /lib/x86_64-linux-gnu /usr/local/lib; do
    [ -e "$d/libvulkan.so.1" ] && return 0
  done
  return 1
}
if ! has_loader; then
  export LD_LIBRARY_PATH="$HERE/vulkan${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  VULKAN_NOTE="carried loader ($(cat "$HERE/vulkan/SOURCE" 2>/dev/null | tr -d '\n'))"
fi
ICD_NOTE='as found'
if [ -z "${VK_ICD_FILENAMES:-}" ] && ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    if [ -e "$d/libGLX_nvidia.so.0" ]; then
      printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s/libGLX_nvidia.so.0","api_version":"1.3.0"}}\n' "$d" > "$HERE/nvidia_icd.json"
      export VK_ICD_FILENAMES="$HERE/nvidia_icd.json"
      ICD_NOTE="written for $d/libGLX_nvidia.so.0"
      break
    fi
  done
fi

# One step: its command's output to OUT/NAME.log, and a line in the summary.
STEPS=''
now() { "$NODE" -e 'process.stdout.write(String(Date.now()))'; }
step() {
  name=$1; shift
  echo "run.sh: $name: $*" >&2
  t0=$(now)
  "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  t1=$(now)
  STEPS="$STEPS{\"name\":\"$name\",\"exit\":$rc,\"seconds\":$(( (t1 - t0) / 1000 )).$(( (t1 - t0) % 1000 / 100 )),\"log\":\"$name.log\"},"
  return $rc
}
# A step whose output becomes OUT/NAME.json: {command, exit, seconds, output}.
as_json() {
  name=$1; shift
  step "$name" "$@"
  rc=$?
  "$NODE" -e '
    const [file, log, rc, ...cmd] = process.argv.slice(1);
    const fs = require("node:fs");
    fs.writeFileSync(file, JSON.stringify({ command: cmd.join(" "), exit: Number(rc), passed: Number(rc) === 0, output: fs.readFileSync(log, "utf8").split("\n") }, null, 2) + "\n");
  ' "$OUT/$name.json" "$OUT/$name.log" "$rc" "$@"
  return $rc
}

# The machine.
"$NODE" -e '
  const os = require("node:os");
  const { execSync } = require("node:child_process");
  const sh = (c) => { try { return execSync(c, { stdio: ["ignore", "pipe", "ignore"] }).toString().trim(); } catch { return null; } };
  import(process.argv[5]).then(async ({ create, globals }) => {
    Object.assign(globalThis, globals);
    let a = await create([]).requestAdapter({ powerPreference: "high-performance" });
    if (!a && !process.env.VK_ICD_FILENAMES && require("node:fs").existsSync("/usr/lib/chromium/vk_swiftshader_icd.json")) {
      process.env.VK_ICD_FILENAMES = "/usr/lib/chromium/vk_swiftshader_icd.json";
      a = await create([]).requestAdapter();
    }
    const info = a ? { vendor: a.info.vendor, architecture: a.info.architecture, device: a.info.device, description: a.info.description } : null;
    require("node:fs").writeFileSync(process.argv[1], JSON.stringify({
      node: process.version, platform: `${os.platform()} ${os.release()} ${os.arch()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
      gpu: sh("nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader"),
      vulkanLoader: process.argv[2], icd: process.argv[3], VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? null, adapter: info, quick: process.argv[4] === "1",
    }, null, 2) + "\n");
    process.exit(0);
  });
' "$OUT/env.json" "$VULKAN_NOTE" "$ICD_NOTE" "$QUICK" "$HERE/node_modules/webgpu/index.js" 2>"$OUT/env.log" || echo 'run.sh: the adapter probe failed (env.log)' >&2

as_json gradcheck "$NODE" "$CLI" gradcheck --backend webgpu --seed 1

if [ "$QUICK" = 1 ]; then
  RUNGS='tiny'; BENCH_STEPS=2; RUN_STEPS=5
else
  RUNGS='tiny small medium'; BENCH_STEPS=10; RUN_STEPS=100
fi
for r in $RUNGS; do
  step "bench-$r" "$NODE" "$CLI" bench --rung "$r" --backend webgpu --steps "$BENCH_STEPS" --rl-steps 3 --json "$OUT/bench-$r.json"
  if [ "$QUICK" = 0 ]; then
    for v in blocked4x4 tiled64; do
      step "matmul-$r-$v" "$NODE" "$CLI" bench --rung "$r" --backend webgpu --steps "$BENCH_STEPS" --matmul-variant "$v" --json "$OUT/matmul-$r-$v.json"
    done
  fi
  rm -rf "$OUT/run-$r"
  step "magic-$r" "$NODE" "$CLI" train --preset magic --rung "$r" --backend webgpu --steps "$RUN_STEPS" --out "$OUT/run-$r"
  # Seconds per step and per phase from the run's records (the first step is warm-up).
  "$NODE" -e '
    const fs = require("node:fs");
    const [dir, file, rung] = process.argv.slice(1);
    const m = fs.existsSync(`${dir}/metrics.jsonl`) ? fs.readFileSync(`${dir}/metrics.jsonl`, "utf8") : "";
    const steps = m.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((r) => typeof r.step === "number" && typeof r["timing_s/step"] === "number");
    const warm = steps.slice(1);
    const mean = (k) => warm.length ? warm.reduce((s, r) => s + (r[k] ?? 0), 0) / warm.length : null;
    const phases = {};
    for (const k of new Set(warm.flatMap((r) => Object.keys(r).filter((x) => x.startsWith("timing_s/"))))) phases[k] = mean(k);
    fs.writeFileSync(file, JSON.stringify({ rung, steps: steps.length, meanStepSecondsAfterFirst: mean("timing_s/step"), phases, device: (() => { try { return JSON.parse(fs.readFileSync(`${dir}/train-done.json`, "utf8")).device ?? null; } catch { return null; } })() }, null, 2) + "\n");
  ' "$OUT/run-$r" "$OUT/magic-$r.json" "$r"
done

# In-page peers need a browser and the page's packages (node_modules): a full checkout has them.
if [ "$QUICK" = 0 ] && [ -d "$ROOT/node_modules/@playwright/test" ] && [ -x /usr/bin/chromium ]; then
  step peers "$NODE" "$ROOT/scripts/bench-peers-webgpu.mjs"
  printf '{"ran":true,"log":"peers.log"}\n' > "$OUT/peers.json"
else
  printf '{"ran":false,"why":"%s"}\n' "$([ "$QUICK" = 1 ] && echo 'not in --quick' || echo 'no node_modules/@playwright/test or no /usr/bin/chromium: the in-page peers need the page and a browser')" > "$OUT/peers.json"
fi

printf '{"quick":%s,"steps":[%s]}\n' "$([ "$QUICK" = 1 ] && echo true || echo false)" "${STEPS%,}" > "$OUT/summary.json"
echo "run.sh: results in $OUT" >&2
