// The house rules the layout depends on (docs/architecture/contract.md, "Layers"), checked on the
// source: core imports no Node module (but in the file its package.json gives Node only) and no other
// Reins package; a harness folder never imports a sibling harness folder (shared code lives in
// runtime/ and protocols/); only the CLI's demo and
// conformance commands use the testkit in production code; the daemon never imports its client; every
// runtime import is a declared, exactly pinned dependency; no package imports one above it; no production
// file over 500 lines and no import cycle; and every harness folder has the same shape.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packages = fileURLToPath(new URL('../../', import.meta.url));
const harnessSource = join(packages, 'harnesses', 'src');
/** Folders under harnesses/src that every adapter may use: not harnesses themselves. */
const SHARED = new Set(['runtime', 'protocols']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures') continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

// Test support lives under each package's test/ folder (harnesses/test/support/...), never beside production code.
const isTest = (path: string) => /\.test\.tsx?$/.test(path);

function imports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const specs: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'([^']+)'/g))
    specs.push(match[1] as string);
  for (const match of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) specs.push(match[1] as string);
  return specs;
}

describe('layering', () => {
  it('core imports no Node module and no other Reins package (it runs in a browser)', () => {
    // The one exception: a file core's package.json "imports" gives Node only (the `node` condition of
    // an entry whose `default`, what a browser or bundler resolves, is another file).
    const coreImports = JSON.parse(readFileSync(join(packages, 'core', 'package.json'), 'utf8')).imports ?? {};
    const nodeOnly = new Set<string>();
    for (const [name, targets] of Object.entries(coreImports as Record<string, Record<string, string>>)) {
      expect(targets.default, `${name} has a target for browsers`).toBeDefined();
      if (targets.node && targets.node !== targets.default) {
        nodeOnly.add(join(packages, 'core', targets.node.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')));
      }
    }
    const offending: string[] = [];
    for (const file of sourceFiles(join(packages, 'core', 'src')).filter((f) => !isTest(f))) {
      for (const spec of imports(file)) {
        if ((spec.startsWith('node:') && !nodeOnly.has(file)) || spec.startsWith('@reins/'))
          offending.push(`${relative(packages, file)}: ${spec}`);
      }
    }
    expect(offending).toEqual([]);
    expect([...nodeOnly].every((file) => existsSync(file))).toBe(true);
  });

  it('the daemon imports nothing from @reins/client (the wire protocol is @reins/protocol; the server never depends on its client)', () => {
    const offending = sourceFiles(join(packages, 'daemon', 'src'))
      .filter(
        (file) =>
          !isTest(file) && imports(file).some((spec) => spec === '@reins/client' || spec.includes('client/src')),
      )
      .map((file) => relative(packages, file));
    expect(offending).toEqual([]);
  });

  it('no harness folder imports a sibling harness folder', () => {
    const offending: string[] = [];
    const folders = readdirSync(harnessSource).filter((name) => statSync(join(harnessSource, name)).isDirectory());
    for (const folder of folders.filter((name) => !SHARED.has(name))) {
      for (const file of sourceFiles(join(harnessSource, folder))) {
        for (const spec of imports(file).filter((s) => s.startsWith('.'))) {
          const target = relative(harnessSource, resolve(file, '..', spec)).split(/[\\/]/)[0] as string;
          if (target !== folder && folders.includes(target) && !SHARED.has(target)) {
            offending.push(`${relative(packages, file)} imports ${spec}`);
          }
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('nothing under harnesses/src but a *.test.ts file imports the testkit (which imports the harnesses)', () => {
    const offending = sourceFiles(harnessSource)
      .filter(
        (file) => !isTest(file) && imports(file).some((s) => s.startsWith('@reins/testkit') || s.includes('testkit/')),
      )
      .map((file) => relative(packages, file));
    expect(offending).toEqual([]);
  });

  it('only the CLI demo and conformance commands use the testkit in production code', () => {
    const allowed = new Set([
      'cli/src/commands/demo.ts',
      'cli/src/commands/console-demo.ts', // the console on the embedded scripted model
      'cli/src/commands/conformance.ts',
      'cli/src/commands/conformance-cleanup.ts', // the demo's and conformance's targets, closed on a signal
      'cli/src/commands/doctor.ts', // says when the only copies are the pinned test copies (harness-clis/)
      'cli/src/hermetic.ts',
    ]);
    const offending: string[] = [];
    for (const pkg of readdirSync(packages).filter((name) => name !== 'testkit')) {
      const src = join(packages, pkg, 'src');
      if (!existsSync(src)) continue;
      for (const file of sourceFiles(src).filter((f) => !isTest(f))) {
        const uses = imports(file).some((s) => s === '@reins/testkit' || s.includes('testkit/src'));
        const name = relative(packages, file).split('\\').join('/');
        if (uses && !allowed.has(name)) offending.push(name);
      }
    }
    expect(offending).toEqual([]);
  });
});

describe('structure', () => {
  /** Lower first: a package's production code imports only packages before it. */
  const LAYERS = ['core', 'protocol', 'client', 'harnesses', 'testkit', 'console', 'daemon', 'bridges', 'cli'];
  /**
   * Production files over 500 lines that wait to be split by concern (issue 26, step 3); nothing may join
   * them. Remove a name once its file is split.
   */
  const OVERSIZE_UNTIL_SPLIT = new Set<string>([]);
  const production = () =>
    readdirSync(packages)
      .filter((pkg) => existsSync(join(packages, pkg, 'src')))
      .flatMap((pkg) => sourceFiles(join(packages, pkg, 'src')).filter((file) => !isTest(file)))
      .filter((file) => !/[\\/](generated|fixtures)[\\/]/.test(file) && !file.endsWith('.mjs'));
  const name = (file: string) => relative(packages, file).split('\\').join('/');

  it('no package imports a package above it', () => {
    const offending: string[] = [];
    for (const file of production()) {
      const rank = LAYERS.indexOf(name(file).split('/')[0] as string);
      for (const spec of imports(file).filter((s) => s.startsWith('@reins/'))) {
        const target = LAYERS.indexOf(spec.split('/')[1] as string);
        if (target >= rank) offending.push(`${name(file)} imports ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('no production file over 500 lines joins the ones waiting to be split', () => {
    const over = production()
      .filter((file) => readFileSync(file, 'utf8').split('\n').length > 501)
      .map(name)
      .filter((file) => !OVERSIZE_UNTIL_SPLIT.has(file));
    expect(over).toEqual([]);
  });

  // What two modules share gets a module of its own (docs/architecture/contract.md, "Layers").
  it('no import cycle (value, type or lazy import) between production modules', () => {
    const graph = new Map<string, string[]>();
    for (const file of production()) {
      const targets = imports(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolve(file, '..', spec).replace(/\.js$/, ''))
        .map((base) => [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => existsSync(path)))
        .filter((path): path is string => path !== undefined);
      graph.set(file, targets);
    }
    expect(stronglyConnected(graph).map((cycle) => cycle.map(name).sort())).toEqual([]);
  });

  it('the cycle finder finds a cycle and leaves a chain alone', () => {
    const cycle = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(stronglyConnected(cycle).map((scc) => scc.sort())).toEqual([['a', 'b', 'c']]);
  });
});

/** Tarjan's strongly connected components with more than one member (the import cycles). */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, order.size);
    low.set(node, order.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, order.get(next) as number));
    }
    if (low.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component);
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

describe('package manifests', () => {
  const root = join(packages, '..');
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const manifests = readdirSync(packages)
    .filter((pkg) => existsSync(join(packages, pkg, 'package.json')))
    .map((pkg) => ({
      pkg,
      manifest: JSON.parse(readFileSync(join(packages, pkg, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        imports?: Record<string, unknown>;
      },
    }));
  /** The package a bare specifier names: `@scope/name/sub` -> `@scope/name`, `zod/v4` -> `zod`. */
  const packageOf = (spec: string) =>
    spec
      .split('/')
      .slice(0, spec.startsWith('@') ? 2 : 1)
      .join('/');
  const runtimeImports = (file: string) =>
    [
      ...readFileSync(file, 'utf8').matchAll(
        /(?:^|\n)\s*(?:import|export)(\s+type\b)?[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g,
      ),
    ]
      .filter((match) => !match[1])
      .map((match) => (match[2] ?? match[3]) as string);

  it('every runtime import of production code (src/, bin/) is a declared dependency', () => {
    const offending: string[] = [];
    for (const { pkg, manifest } of manifests) {
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
        // The package's own subpath imports (#name), which its package.json "imports" maps.
        ...Object.keys(manifest.imports ?? {}),
      ]);
      const dirs = ['src', 'bin'].map((dir) => join(packages, pkg, dir)).filter((dir) => existsSync(dir));
      for (const file of dirs.flatMap((dir) => sourceFiles(dir)).filter((f) => !isTest(f))) {
        for (const spec of runtimeImports(file)) {
          if (spec.startsWith('.') || spec.startsWith('node:') || declared.has(packageOf(spec))) continue;
          offending.push(`${relative(packages, file)} imports ${spec}, not in ${pkg}/package.json dependencies`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('every dependency is pinned to the exact version the root lock installs', () => {
    const offending: string[] = [];
    for (const { pkg, manifest } of manifests) {
      const all = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
      for (const [name, version] of Object.entries(all)) {
        const locked =
          lock.packages[`packages/${pkg}/node_modules/${name}`]?.version ??
          lock.packages[`node_modules/${name}`]?.version;
        const workspace = name.startsWith('@reins/');
        if (!/^\d+\.\d+\.\d+$/.test(version) || (!workspace && locked !== version)) {
          offending.push(`${pkg}: ${name} ${version} (lock: ${locked ?? 'absent'})`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('the import scan sees runtime imports and skips type-only ones', () => {
    const probe = join(packages, 'harnesses', 'src', 'architecture.test.ts');
    expect(packageOf('@scope/name/sub')).toBe('@scope/name');
    expect(runtimeImports(probe)).toEqual(expect.arrayContaining(['node:fs', 'vitest']));
  });
});

describe('harness folder shape', () => {
  // The files a new harness copies (docs/architecture/adding-a-harness.md).
  const REQUIRED = [
    'index.ts',
    'adapter.ts',
    'translate.ts',
    'translate.test.ts',
    'wire.ts',
    'discovery.ts',
    'fixtures',
  ];
  const folders = readdirSync(harnessSource).filter(
    (name) => statSync(join(harnessSource, name)).isDirectory() && !SHARED.has(name),
  );

  it.each(folders)('%s has the files every harness folder has', (folder) => {
    const missing = REQUIRED.filter((file) => !existsSync(join(harnessSource, folder, file)));
    expect(missing).toEqual([]);
  });

  it.each(folders)('%s/index.ts names its exports (no export *)', (folder) => {
    const index = readFileSync(join(harnessSource, folder, 'index.ts'), 'utf8');
    expect(index).not.toMatch(/export \* from/);
  });
});

describe('manifests', () => {
  it('every harness id has exactly one manifest, and every harness folder contributes one', async () => {
    const { HARNESS_IDS } = await import('@reins/core');
    const { HARNESS_MANIFESTS } = await import('./manifests.js');
    expect(HARNESS_MANIFESTS.map((manifest) => manifest.id)).toEqual([...HARNESS_IDS]);
  });
});

describe('one folder per harness', () => {
  /**
   * Production files outside a harness folder that still name a harness id, each with why (issue 26,
   * step 1). The list may only shrink: move the fact into the harness's folder (its manifest, BinarySpec
   * or testing part) and remove the name here.
   */
  const NAMES_A_HARNESS = new Map([
    ['core/src/harness-ids.ts', 'the list of ids itself'],
    ['testkit/src/canary/main.ts', "the canary's Codex protocol diff"],
    ['testkit/bin/fuzz-args.mjs', '`acp` is also a bridge protocol (FUZZ_BRIDGES)'],
    ['cli/src/commands/bridge.ts', '`acp` is also a bridge protocol'],
    ['bridges/src/records.ts', '`acp` is also a bridge protocol'],
  ]);
  const harnessFolders = readdirSync(harnessSource).filter(
    (name) => statSync(join(harnessSource, name)).isDirectory() && !SHARED.has(name),
  );

  async function namingFiles(): Promise<string[]> {
    const { HARNESS_IDS } = await import('@reins/core');
    const quoted = new RegExp(`['"\`](${HARNESS_IDS.join('|')})['"\`]`);
    const out: string[] = [];
    for (const pkg of readdirSync(packages)) {
      for (const dir of ['src', 'bin'].map((sub) => join(packages, pkg, sub)).filter((path) => existsSync(path))) {
        for (const file of sourceFiles(dir).filter((f) => !isTest(f) && !/[\\/]generated[\\/]/.test(f))) {
          const name = relative(packages, file).split('\\').join('/');
          if (harnessFolders.some((folder) => name.startsWith(`harnesses/src/${folder}/`))) continue;
          const code = readFileSync(file, 'utf8')
            .split('\n')
            .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line));
          if (code.some((line) => quoted.test(line))) out.push(name);
        }
      }
    }
    return out;
  }

  it('no production file outside a harness folder names a harness id (beyond the shrinking list)', async () => {
    const offending = (await namingFiles()).filter((name) => !NAMES_A_HARNESS.has(name));
    expect(offending).toEqual([]);
  });

  it('the list names only files that still name a harness', async () => {
    const naming = new Set(await namingFiles());
    expect([...NAMES_A_HARNESS.keys()].filter((name) => !naming.has(name))).toEqual([]);
  });

  // The same rule one level down: each ACP agent is one folder, acp/presets/<id>/ (`acp` there is the
  // generic harness, which the whole acp/ folder is).
  it('no production file of acp/ outside presets/<id>/ names that ACP agent', async () => {
    const { HARNESS_IDS } = await import('@reins/core');
    const presets = join(harnessSource, 'acp', 'presets');
    const agents = readdirSync(presets).filter((name) => statSync(join(presets, name)).isDirectory() && name !== 'acp');
    expect(agents.length).toBeGreaterThan(0);
    expect(agents.filter((agent) => !(HARNESS_IDS as readonly string[]).includes(agent))).toEqual([]);
    const offending: string[] = [];
    for (const file of sourceFiles(join(harnessSource, 'acp')).filter((f) => !isTest(f))) {
      const home = relative(presets, file).split(/[\\/]/)[0];
      const others = agents.filter((agent) => agent !== home);
      const quoted = new RegExp(`['"\`](${others.join('|')})['"\`]`);
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line));
      if (code.some((line) => quoted.test(line))) offending.push(relative(packages, file));
    }
    expect(offending).toEqual([]);
  });
});
