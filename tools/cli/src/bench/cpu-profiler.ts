// Loaded with `--require` into the stack's processes when BENCH_PROFILE_DIR is set (the hot part of the
// bench): SIGWINCH (no terminal, and no shutdown signal for close-with-grace) starts a CPU profile, the next SIGWINCH writes it to BENCH_PROFILE_DIR/<pid>-<n>.cpuprofile.
// The bench sends the signals around one measurement, so a profile holds that measurement and nothing else.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let profiling = false;
  let written = 0;
  process.on('SIGWINCH', () => {
    if (!profiling) {
      profiling = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    profiling = false;
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      written++;
      writeFileSync(join(dir, `${process.pid}-${written}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
