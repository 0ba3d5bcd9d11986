// The fixture format and recorder: every native line in both directions of a real CLI session,
// one JSON object per line, the harness and its version in the first line. Translation tests
// replay these real frames instead of hand-written ones.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface FixtureHeader {
  fixture: 'reins/v1';
  harness: string;
  /** The CLI version the frames were recorded from. */
  version: string;
  scenario: string;
  recordedAt: string;
}

export interface FixtureFrame {
  /** in: Reins -> harness; out: harness stdout; err: harness stderr. */
  dir: 'in' | 'out' | 'err';
  /** ms since the recording started. */
  t: number;
  /** The parsed JSON line, or the raw text when it is not JSON. */
  frame: unknown;
}

export interface Fixture {
  header: FixtureHeader;
  frames: FixtureFrame[];
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A tap (HarnessOptions.tap / SpawnSpec.tap) that keeps every line, and writes them as a fixture. */
export function fixtureRecorder(meta: { harness: string; version: string; scenario: string }) {
  const started = Date.now();
  const frames: FixtureFrame[] = [];
  return {
    tap(dir: 'in' | 'out' | 'err', text: string): void {
      frames.push({ dir, t: Date.now() - started, frame: dir === 'err' ? text : parseLine(text) });
    },
    get frames(): readonly FixtureFrame[] {
      return frames;
    },
    async save(path: string): Promise<void> {
      const header: FixtureHeader = { fixture: 'reins/v1', ...meta, recordedAt: new Date(started).toISOString() };
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `${[header, ...frames].map((line) => JSON.stringify(line)).join('\n')}\n`);
    },
  };
}

export async function readFixture(path: string): Promise<Fixture> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  const [first, ...rest] = lines.map((line) => JSON.parse(line) as unknown);
  const header = first as FixtureHeader;
  if (header?.fixture !== 'reins/v1') throw new Error(`${path} is not a Reins fixture (first line: ${lines[0]})`);
  return { header, frames: rest as FixtureFrame[] };
}

/** The harness's output frames only, in order (what a translation test feeds). */
export function outputFrames(fixture: Fixture): unknown[] {
  return fixture.frames.filter((frame) => frame.dir === 'out').map((frame) => frame.frame);
}
