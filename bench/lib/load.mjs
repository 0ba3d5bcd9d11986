// `--load N`: N busy worker processes beside the bench, so that the quiet and the loaded figures come
// from one invocation. Each worker is a separate Node process (never a thread of the bench: the
// translation figure is the bench process's own CPU time) that spins and allocates, like the test
// runs and builds that share the machine. Only the workers started here are stopped, by pid.
import { spawn } from 'node:child_process';

const WORK = `
let keep = [];
for (;;) {
  for (let i = 0; i < 1e5; i++) keep.push({ i, s: String(i) });
  keep = [];
}`;

/** Starts `count` busy workers; resolves once every one runs. `stop()` ends them and waits. */
export async function startLoad(count) {
  const workers = [];
  for (let index = 0; index < count; index++) {
    const child = spawn(process.execPath, ['-e', WORK], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    workers.push({ child, exited });
  }
  // A bench killed mid-run must not leave spinning workers behind.
  const onExit = () => {
    for (const { child } of workers) child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  return {
    count,
    async stop() {
      process.off('exit', onExit);
      for (const { child } of workers) child.kill('SIGKILL');
      await Promise.all(workers.map(({ exited }) => exited));
    },
  };
}
