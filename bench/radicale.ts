/**
 * Radicale (Debian's package), the CalDAV server many self-hosters run, serving the same 1,000
 * to-dos a Tickler calendar serves, written by Tickler's own writer: the bench's comparison of
 * CalDAV servers (docs/decisions/0027-caldav.md). Started when `radicale` is installed; its own
 * process's CPU (from /proc) is what the parent reads, as it reads a Tickler server's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calendarObject } from '../src/ical/vtodo-write.js';
import { NOTHING_KEPT } from '../src/ical/vtodo-model.js';
import { seededTask } from './seed.js';
import type { ServerReady } from './server.js';

export const RADICALE_CALENDAR = '/bench/tasks/';
const AUTH = `Basic ${Buffer.from('bench:bench').toString('base64')}`;

export function radicaleInstalled(): boolean {
  return spawnSync('radicale', ['--version']).status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function call(port: number, method: string, path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { authorization: AUTH, 'content-type': 'application/xml', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU µs of a process so far, from /proc (clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export async function radicaleServer(setup: { readonly tasks: number; readonly oneChange?: boolean }, ready: (msg: ServerReady, cpu: () => number) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-radicale-'));
  const calendar = join(dir, 'collections', 'collection-root', 'bench', 'tasks');
  mkdirSync(calendar, { recursive: true });
  writeFileSync(join(calendar, '.Radicale.props'), JSON.stringify({ tag: 'VCALENDAR', 'C:supported-calendar-component-set': 'VTODO', 'D:displayname': 'Tasks' }));
  for (let id = 1; id <= setup.tasks; id++) {
    writeFileSync(join(calendar, `tickler-${id}.ics`), calendarObject(seededTask(id, 1_000_000), { uid: `task-${id}-bench@tickler`, kept: NOTHING_KEPT, offsetMinutes: -300 }));
  }
  const port = await freePort();
  writeFileSync(
    join(dir, 'config'),
    `[server]\nhosts = 127.0.0.1:${port}\n[auth]\ntype = none\n[rights]\ntype = authenticated\n[storage]\nfilesystem_folder = ${join(dir, 'collections')}\n[logging]\nlevel = warning\n[web]\ntype = none\n`,
  );
  const child: ChildProcess = spawn('radicale', ['--config', join(dir, 'config')], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await call(port, 'OPTIONS', '/', '').catch(() => undefined);
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const substitutions: Record<string, string> = { CAL: RADICALE_CALENDAR };
  const sync = (token: string): string => `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;
  // Radicale builds its caches on the first listing: done before the measurement, as Tickler's warm-up does.
  await call(port, 'PROPFIND', RADICALE_CALENDAR, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '1' });
  if (setup.oneChange) {
    const first = await call(port, 'REPORT', RADICALE_CALENDAR, sync(''));
    substitutions['SYNC_TOKEN'] = /<sync-token>([^<]*)<\/sync-token>/.exec(first.body)?.[1] ?? '';
    const changed = calendarObject(seededTask(1, 2_000_000), { uid: 'task-1-bench@tickler', kept: NOTHING_KEPT, offsetMinutes: -300 }).replace('SUMMARY:', 'SUMMARY:(changed) ');
    await call(port, 'PUT', `${RADICALE_CALENDAR}tickler-1.ics`, changed, { 'content-type': 'text/calendar' });
  }
  ready({ port, authorizations: [AUTH], substitutions }, () => cpuOf(child.pid as number));
  process.once('disconnect', () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });
}
