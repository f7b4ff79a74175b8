import cliProgress from 'cli-progress';
import type { ImportKind } from '../storage/store.js';

/**
 * Progress of an import on stderr: a bar per kind on a terminal (cli-progress), plain lines
 * otherwise (a log, a test reading the output), one per page, so that an interrupted run shows
 * how far it got.
 */
export class ImportProgress {
  private readonly bar: cliProgress.SingleBar | undefined;
  private kind: ImportKind | undefined;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {
    this.bar = out.isTTY
      ? new cliProgress.SingleBar({ stream: out, format: '{kind} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic)
      : undefined;
  }

  update(kind: ImportKind, done: number, total: number | undefined): void {
    if (!this.bar) {
      this.out.write(`${kind}s ${done}${total !== undefined ? `/${total}` : ''}\n`);
      return;
    }
    if (kind !== this.kind) {
      this.bar.stop();
      this.kind = kind;
      this.bar.start(total ?? done, done, { kind: `${kind}s`.padEnd(10) });
    } else {
      this.bar.setTotal(Math.max(total ?? done, done));
      this.bar.update(done);
    }
  }

  /** A line between updates (a wait for the source's limit). */
  say(line: string): void {
    if (this.bar) this.bar.stop();
    this.kind = undefined;
    this.out.write(`${line}\n`);
  }

  stop(): void {
    this.bar?.stop();
  }
}
