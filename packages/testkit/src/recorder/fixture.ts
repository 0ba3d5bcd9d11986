// The one fixture format (reins/v1) and its recorder. A fixture is every native line of a harness
// session in both directions, one JSON object per line:
//   line 1:  {"format":"reins/v1","harness":"codex","package":"@openai/codex","version":"0.169.0",
//             "behaviour":"text-turn","recordedAt":"..."}   (constructed fixtures say so: constructed, note)
//   then:    {"dir":"in"|"out"|"err","t":<ms since start>,"frame":<the parsed line, or its text>}
// One naming scheme for every adapter: `<behaviour>.<cli-version>.jsonl` in the harness folder's
// fixtures/ (the ACP adapter, which serves several harnesses, keeps one folder per harness there). A
// behaviour recorded over several processes numbers the later files `<behaviour>-2`, `-3`, ...
// Translation tests replay these real frames instead of hand-written ones; the fakes replay them too.
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const FIXTURE_FORMAT = 'reins/v1';

export interface FixtureHeader {
  format: typeof FIXTURE_FORMAT;
  harness: string;
  /** The npm package of the CLI the frames came from. */
  package: string;
  /** The CLI version the frames were recorded from. */
  version: string;
  /** What the session did (the file name's first part). */
  behaviour: string;
  recordedAt?: string;
  /** True when the frames were written by hand after the harness's documentation, not recorded. */
  constructed?: boolean;
  note?: string;
}

export type FixtureDirection = 'in' | 'out' | 'err';

export interface FixtureFrame {
  /** in: Reins -> harness; out: harness stdout (or socket); err: harness stderr. */
  dir: FixtureDirection;
  /** ms since the recording started, when recorded. */
  t?: number;
  /** The parsed JSON line, or the raw text when it is not JSON. */
  frame: unknown;
}

export interface Fixture {
  header: FixtureHeader;
  frames: FixtureFrame[];
}

/** `<behaviour>.<version>.jsonl`; a behaviour has no dot, so the version is everything after the first. */
export function fixtureFileName(behaviour: string, version: string): string {
  if (behaviour.includes('.') || behaviour.includes('/')) {
    throw new Error(`A fixture behaviour has no "." or "/" in it ("${behaviour}").`);
  }
  return `${behaviour}.${version}.jsonl`;
}

/** The behaviour and version a fixture file name states; undefined for a name outside the scheme. */
export function parseFixtureFileName(name: string): { behaviour: string; version: string } | undefined {
  const match = /^([^./]+)\.(.+)\.jsonl$/.exec(name);
  return match ? { behaviour: match[1] as string, version: match[2] as string } : undefined;
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface FixtureMeta {
  harness: string;
  package: string;
  version: string;
  behaviour: string;
}

/** A tap (HarnessOptions.tap / SpawnSpec.tap) that keeps every line, and writes them as a fixture. */
export function fixtureRecorder(meta: FixtureMeta) {
  const started = Date.now();
  const frames: FixtureFrame[] = [];
  const text = () => {
    const header: FixtureHeader = { format: FIXTURE_FORMAT, ...meta, recordedAt: new Date(started).toISOString() };
    return `${[header, ...frames].map((line) => JSON.stringify(line)).join('\n')}\n`;
  };
  return {
    tap(dir: FixtureDirection, line: string): void {
      frames.push({ dir, t: Date.now() - started, frame: dir === 'err' ? line : parseLine(line) });
    },
    get frames(): readonly FixtureFrame[] {
      return frames;
    },
    /** The file name this recording gets in a fixtures folder (`part` 2, 3, ... for later processes). */
    fileName(part = 1): string {
      return fixtureFileName(part > 1 ? `${meta.behaviour}-${part}` : meta.behaviour, meta.version);
    },
    async save(path: string): Promise<void> {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text());
    },
    /** Saves under `dir` by the naming scheme; returns the path. */
    async saveIn(dir: string, part = 1): Promise<string> {
      const path = join(dir, this.fileName(part));
      await this.save(path);
      return path;
    },
  };
}

/** Reads a fixture's text; throws with the reason when it is not reins/v1. */
export function parseFixture(text: string, source = 'the fixture'): Fixture {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const [first, ...rest] = lines.map((line, index) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw new Error(`${source}: line ${index + 1} is not JSON.`);
    }
  });
  const header = first as Partial<FixtureHeader> | undefined;
  if (
    header?.format !== FIXTURE_FORMAT ||
    typeof header.harness !== 'string' ||
    typeof header.package !== 'string' ||
    typeof header.version !== 'string' ||
    typeof header.behaviour !== 'string'
  ) {
    throw new Error(
      `${source} is not a Reins fixture: its first line must be a ${FIXTURE_FORMAT} header with harness, package, version and behaviour (first line: ${lines[0]?.slice(0, 200)})`,
    );
  }
  const frames = rest as FixtureFrame[];
  frames.forEach((frame, index) => {
    if (frame?.dir !== 'in' && frame?.dir !== 'out' && frame?.dir !== 'err') {
      throw new Error(`${source}: line ${index + 2} has no direction (dir "in", "out" or "err").`);
    }
  });
  return { header: header as FixtureHeader, frames };
}

export async function readFixture(path: string | URL): Promise<Fixture> {
  return parseFixture(await readFile(path, 'utf8'), String(path));
}

export function readFixtureSync(path: string | URL): Fixture {
  return parseFixture(readFileSync(path, 'utf8'), String(path));
}

/** The harness's output frames only, in order (what a translation test feeds). */
export function outputFrames(fixture: Fixture): unknown[] {
  return fixture.frames.filter((frame) => frame.dir === 'out').map((frame) => frame.frame);
}
