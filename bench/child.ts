import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Ends a benchmark server: it closes when its parent disconnects, and is killed if it has not within 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
