// A harness's test side, kept in its own folder (docs/architecture/adding-a-harness.md): where its pinned
// CLI sits in harness-clis/ and what it prints for --version (the pin, read synchronously), and what only
// the testkit loads (the hermetic home, the conformance recipe). Nothing here names a harness.
import { readFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmitMeta, EventPayload, HarnessId, PayloadOf, TurnInput } from '@reins/core';
import type { HarnessOptions } from './runtime/options.js';

/** Where one install of a package sits in harness-clis/node_modules, and how its dependencies resolve. */
export interface PackagePlace {
  /** The package's own folder (node_modules/<name>, or node_modules/<alias> for a previous pin). */
  dir: string;
  /** A dependency's folder, resolved like Node: the package's own node_modules first, then the hoisted one. */
  dep(name: string): string;
  /** The Node that runs the tests. */
  hostNode: string;
  /** The Node 24 harness-clis ships, for CLIs that need a newer Node. */
  bundledNode: string;
}

/** How to spawn an installed CLI. */
export interface LocatedBinary {
  /** The executable: the native binary, or a Node for JS CLIs. */
  command: string;
  /** Arguments before the harness's own (the script path for JS CLIs). */
  args: string[];
  /** Node binary for JS CLIs; its folder goes first on the harness's PATH. */
  nodePath?: string;
  /** Extra folders the CLI expects on PATH. */
  pathDirs?: string[];
}

export type LocateBinary = (place: PackagePlace) => LocatedBinary;

/** One harness's pinned CLI in harness-clis/package.json (installed with scripts off: no npm bin shims). */
export interface HarnessPinSpec {
  id: HarnessId;
  /** The npm package pinned (its real name). */
  packageName: string;
  locate: LocateBinary;
  /**
   * The previous version, kept installed beside the current one: `{}` under the npm alias
   * `<packageName>-previous`, or another package (an agent that moved scope) with its own locator.
   */
  previous?: { packageName?: string; locate?: LocateBinary };
  /** What `--version` prints for a version (stdout or stderr); absent when the CLI has no version flag. */
  versionOutput?: (version: string) => string;
  /** The npm SDK the adapter drives this CLI through, if any (the canary tries its newest version too). */
  sdk?: string;
  /** For a CLI without a version flag: the name its ACP initialize answer gives, by pin. */
  initializeName?: { current: string; previous?: string };
}

/** The folders of a test's temp home (the testkit's TempHome). */
export interface HomeFolders {
  /** Holds everything below. */
  dir: string;
  home: string;
  tmp: string;
}

/** USD per million tokens, the way a harness's own model price table states it. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** What a hermetic home is built for: the located binary and the scripted model server. */
export interface HomeRequest {
  /** The scripted model server, `http://127.0.0.1:PORT` (no trailing slash, no /v1). */
  modelServerUrl: string;
  /** The model the harness starts on; each builder has a default. */
  model?: string;
  /** More model ids to configure, so that there is a model to switch to. */
  extraModels?: string[];
  /** One price for every configured model (harnesses that price turns from their config); absent: free. */
  modelPrice?: ModelPrice;
  tempHome: HomeFolders;
  binary: LocatedBinary & { pathDirs: string[]; version: string };
}

/** A harness's launch in its headless protocol mode, pointed at the scripted model server. */
export interface BuiltHome {
  /** The complete environment for the child: built from EMPTY, never merged with process.env. */
  env: Record<string, string>;
  /** Arguments after the binary's own that start the harness's headless protocol mode. */
  args: string[];
  /** HOME of the child. */
  home: string;
  /** The model the harness was configured to start on, then the extra ones. */
  models: string[];
  /** Config files the builder wrote (absolute paths), for debugging a failed test. */
  files: string[];
  /** A command prefix to run the binary under (a private /tmp), or absent. */
  wrapper?: string[];
  /** Where a harness that listens itself can be reached. */
  endpoint?: { url: string; token: string };
}

/** What the testkit hands each home builder, so harness folders never import the testkit. */
export interface HomeKit {
  /** The fake API key every home configures. */
  fakeApiKey: string;
  /** The model a home starts on when the request names none. */
  defaultModel: string;
  /** EMPTY plus PATH, HOME, TMPDIR, a UTF-8 locale and no colours. */
  baseEnvironment(binary: HomeRequest['binary'], tempHome: HomeFolders): Record<string, string>;
  /** `[model, ...extraModels]` without duplicates. */
  modelList(model: string, extraModels?: readonly string[]): string[];
  /** Writes a file (an object as JSON), creating its folder; returns the path. */
  writeConfig(path: string, content: string | object): Promise<string>;
  freeLoopbackPort(): Promise<number>;
  /** A command prefix that gives the harness its own /tmp inside the temp home. */
  privateTmpWrapper(tempHome: HomeFolders): string[];
  /** harness-clis/ (the pinned CLIs). */
  harnessClisDir(): string;
  /** Another harness's home from its folder, for an agent that runs that harness underneath. */
  homeOf(id: HarnessId, request: HomeRequest): Promise<BuiltHome>;
  /** Runs a short command of the harness (a catalog dump) inside the loopback-only namespace. */
  runHermetic(command: string, args: readonly string[], env: Record<string, string>): Promise<{ stdout: string }>;
  /**
   * CODEX_HOME/config.toml pointing Codex's core at the scripted server (the `fake` provider on the Responses
   * API, the given model catalog, updates, analytics and plugins off), for every harness that runs that core;
   * returns its path and the environment variable holding the fake key.
   */
  writeCodexConfig(
    codexHome: string,
    config: CodexConfigRequest,
  ): Promise<{ path: string; env: Record<string, string> }>;
}

/** What a Codex config.toml names: the starting model, its catalog file and the scripted server. */
export interface CodexConfigRequest {
  model: string;
  catalogPath: string;
  /** The scripted model server, `http://127.0.0.1:PORT` (HomeRequest.modelServerUrl). */
  modelServerUrl: string;
}

export type HomeBuilder = (request: HomeRequest, kit: HomeKit) => Promise<BuiltHome>;

/** One conformance run's launch: the located binary and the hermetic home built for it. */
export interface ConformanceLaunch {
  binary: HomeRequest['binary'];
  home: BuiltHome;
  /** Where the behaviour runs (the session workspace is inside) and its temp home. */
  workdir: string;
  tempHome: HomeFolders;
}

/** What the testkit hands a conformance recipe. */
export interface ConformanceKit {
  /** A private /tmp (HomeKit.privateTmpWrapper) that still shows these folders. */
  privateTmpWrapper(tempHome: HomeFolders, keep: string[]): string[];
  harnessClisDir(): string;
}

/** How the conformance suite makes this harness on its pinned CLI, and what it expects of it. */
export interface ConformanceRecipe {
  /** The options for createHarness(id, ...) on this launch. */
  options(launch: ConformanceLaunch, kit: ConformanceKit): HarnessOptions & Record<string, unknown>;
  /** The model to start on, when the harness names the home's first model differently. */
  primary?: string;
  /** The model to switch to, when the harness does not take the extra fake model as is. */
  alternate?: string;
  /** What the model server then sees, when that differs from `alternate`. */
  alternateOnWire?: string;
  notApplicable?: Partial<Record<string, string>>;
  knownLimitations?: Partial<Record<string, string>>;
}

/** The extra model every conformance home configures, to switch to. */
export const CONFORMANCE_ALTERNATE_MODEL = 'fake-model-2';

/** One recorded frame of a reins/v1 fixture (the testkit's FixtureFrame). */
export interface FuzzFrame {
  /** in: Reins -> harness; out: harness stdout (or socket); err: harness stderr. */
  dir: 'in' | 'out' | 'err';
  frame: unknown;
}

/** One reins/v1 fixture (the testkit's Fixture). */
export interface FuzzFixture {
  header: { harness: string; behaviour: string; version: string };
  frames: FuzzFrame[];
}

/** A field the wire declares as an enum: the fuzzer rewrites it to a value outside `values`. */
export interface FuzzEnumField {
  key: string;
  values: readonly string[];
}

/** The checked core stream a fuzz target feeds (the testkit's CheckedEventStream). */
export interface FuzzStream {
  readonly activeTurnId: string | null;
  readonly stream: { keepAfterTurn(itemId: string): boolean };
  emit(payload: EventPayload, meta?: EmitMeta): void;
  startTurn(input: TurnInput, meta?: EmitMeta & { turnId?: string }): string | undefined;
  completeTurn(completion: Omit<PayloadOf<'turn.completed'>, 'type'>, meta?: EmitMeta): boolean;
}

/** What a harness contributes to the translation fuzzer (packages/harnesses/src/translate.fuzz.test.ts). */
export interface FuzzTarget {
  /** The harness id. */
  name: string;
  /** Its recorded fixtures. */
  corpus: readonly FuzzFixture[];
  mutation: { enumFields: readonly FuzzEnumField[] };
  /**
   * Feeds one (damaged) recording through the PURE translation into `stream` the way the adapter does
   * (turns started and completed where the adapter does it, its own guards kept). Must not throw itself.
   */
  replay(frames: readonly FuzzFrame[], stream: FuzzStream, fixture: FuzzFixture): void;
}

/** What the testkit hands a fuzz target's builder, so harness folders never import the testkit. */
export interface FuzzKit {
  /** Every reins/v1 fixture under `dir` (recursively), in name order. */
  loadCorpus(dir: string): FuzzFixture[];
  /** Enum fields declared in TypeScript files (absolute paths; folders read recursively). */
  enumFieldsOf(...paths: string[]): FuzzEnumField[];
  /** Enum fields declared in a JSON Schema document. */
  enumFieldsFromJsonSchema(schema: unknown): FuzzEnumField[];
}

export type FuzzTargetBuilder = (kit: FuzzKit) => FuzzTarget;

/** How the harness's shell tool takes its command: `{command}`, `{cmd}`, or an argv array (only when its schema says so). */
export type ShellToolArgs = 'command' | 'cmd' | 'argv';

/**
 * How the harness's write tool takes a file: `{<path key>, content}` (the key its schema offers, else
 * `pathKey`), Codex's apply_patch grammar, or `{path, file_text}`.
 */
export type WriteToolArgs = { kind: 'content'; pathKey: string } | { kind: 'patch' } | { kind: 'file_text' };

/** The tools the scripted model server calls for `.shell()` and `.writeFile()` on this harness. */
export interface HarnessTools {
  shell: readonly { name: string; args: ShellToolArgs }[];
  write: readonly { name: string; args: WriteToolArgs }[];
}

/** A harness's test side (HarnessManifest.testing): the pin, and what only the testkit loads. */
export interface HarnessTesting {
  /** Its pinned CLI; absent for a harness not pinned in harness-clis/ (Amp, the generic ACP agent). */
  pin?: HarnessPinSpec;
  /** Its conformance recipe (testing/conformance.ts); absent: no conformance target. */
  conformance?: ConformanceRecipe;
  /** Loads the builder of its hermetic home (testing/home.ts); absent: the testkit still has it. */
  home?: () => Promise<HomeBuilder>;
  /** Its fake executable (testing/fake.mjs, an absolute path from testingSource): the wire protocol from its fixtures. */
  fake?: string;
  /** Loads its translation fuzz target (testing/fuzz.ts). */
  fuzz?: () => Promise<FuzzTargetBuilder>;
  /** Its shell and write tools, as the scripted model server calls them (seen in its recorded frames). */
  tools?: HarnessTools;
  /** `reins console --demo` runs it (on its pinned CLI, when installed). */
  demo?: boolean;
}

/**
 * A file of a harness folder's test side, relative to the module at `moduleUrl`. The build compiles only
 * the .ts files into dist/ (fakes, fixtures and wire sources stay in src/), so from a module in a built
 * dist/ the path is the same file under src/.
 */
export function testingSource(moduleUrl: string, path: string): string {
  const file = fileURLToPath(new URL(path, moduleUrl));
  const at = file.lastIndexOf(`${sep}dist${sep}`);
  return at < 0 ? file : `${file.slice(0, at)}${sep}src${sep}${file.slice(at + 6)}`;
}

/** The npm platform packages' CPU suffix. */
export const linuxCpu = arch() === 'arm64' ? 'arm64' : 'x64';

/** A JS CLI run by a Node binary: `node <package>/<script>`, on the tests' Node or harness-clis' Node 24. */
export function nodeScript(script: string, node: 'host' | 'bundled'): LocateBinary {
  return (place) => {
    const nodePath = node === 'host' ? place.hostNode : place.bundledNode;
    return { command: nodePath, args: [join(place.dir, script)], nodePath };
  };
}

/** Whether the CPU has AVX2 (some CLIs ship a baseline build for CPUs without it). */
export function hasAvx2(): boolean {
  try {
    return /(^|\s)avx2(\s|$)/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}
