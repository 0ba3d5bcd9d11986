// Adding a harness is one folder, one manifest line and one pin (docs/architecture/adding-a-harness.md). The
// template harness folder (test/template/: a line protocol) is copied into a temp directory under a new id,
// handed to the testkit's builders as an extra manifest (HARNESS_IDS and every other file untouched), and
// runs: its translation, a turn through its adapter against its fake, its place in the conformance targets.
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { HarnessId, ReinsEvent, Session } from '@reins/core';
import { HARNESS_MANIFESTS, type HarnessManifest } from '@reins/harnesses';
import { conformanceTargetIds, fakeHarnessIds, fakeHarnessPath, harnessToolRecipes, until } from '@reins/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TEMPLATE = fileURLToPath(new URL('./template/', import.meta.url));
const HARNESS_SOURCE = fileURLToPath(new URL('../src/', import.meta.url));
const NEW_ID = 'throwaway-harness';

let root: string;
let folder: string;
let manifest: HarnessManifest;
let withTemplate: HarnessManifest[];

async function filesUnder(dir: string): Promise<string[]> {
  const names = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return names.map((entry) => relative(dir, join(entry.parentPath, entry.name))).sort();
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'reins-template-'));
  // The copy sits as the template does (a folder beside src/), so its imports resolve unchanged.
  await symlink(HARNESS_SOURCE, join(root, 'src'));
  folder = join(root, 'test', NEW_ID);
  await cp(TEMPLATE, folder, { recursive: true });
  const manifestFile = join(folder, 'manifest.ts');
  const text = await readFile(manifestFile, 'utf8');
  await writeFile(manifestFile, text.replace("const ID = 'line-template'", `const ID = '${NEW_ID}'`));
  manifest = (await import(pathToFileURL(manifestFile).href)).TEMPLATE_MANIFEST;
  withTemplate = [...HARNESS_MANIFESTS, manifest];
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('a harness copied from the template folder under a new id', () => {
  it('is the whole harness: the folder alone, its id written once in its manifest', async () => {
    expect(await filesUnder(folder)).toEqual([
      'adapter.ts',
      'discovery.ts',
      'implemented.ts',
      'index.ts',
      'manifest.ts',
      'testing/conformance.ts',
      'testing/fake.mjs',
      'translate.ts',
      'wire.ts',
    ]);
    const copied = (await readFile(join(folder, 'manifest.ts'), 'utf8')).split('\n');
    const original = (await readFile(join(TEMPLATE, 'manifest.ts'), 'utf8')).split('\n');
    expect(copied.filter((line, at) => line !== original[at])).toEqual([`const ID = '${NEW_ID}' as HarnessId;`]);
    expect(manifest.id).toBe(NEW_ID);
  });

  it('translates its wire: text and the turn end, and an unknown frame passes through', async () => {
    const { createTemplateState, beginTemplateTurn, translateLine } = await import(
      pathToFileURL(join(folder, 'translate.ts')).href
    );
    const state = createTemplateState();
    beginTemplateTurn(state);
    const text = translateLine(state, { type: 'text', text: 'hi' });
    expect(text.map((payload: { type: string }) => payload.type)).toEqual(['item.started', 'item.completed']);
    expect(text[1].item).toMatchObject({ kind: 'agent_message', status: 'completed', text: 'hi' });
    expect(translateLine(state, { type: 'done', stop: 'end_turn' })).toEqual([
      { type: 'turn.completed', outcome: { status: 'completed' }, stopReason: 'end_turn' },
    ]);
    expect(translateLine(state, { type: 'surprise' })).toEqual([
      { type: 'passthrough', frame: { type: 'surprise' }, reason: 'unknown' },
    ]);
  });

  it('the testkit finds its fake from its manifest only when handed the manifest', () => {
    expect(fakeHarnessPath(NEW_ID, withTemplate)).toBe(join(folder, 'testing', 'fake.mjs'));
    expect(fakeHarnessIds()).not.toContain(NEW_ID);
    expect(() => fakeHarnessPath(NEW_ID)).toThrow(`No fake executable for harness "${NEW_ID}"`);
  });

  it('runs a turn through its adapter against its fake, every event under its id', async () => {
    const harness = await manifest.load({
      binaryPath: fakeHarnessPath(NEW_ID, withTemplate),
      baseEnv: { PATH: process.env.PATH ?? '' },
    });
    expect(harness.id).toBe(NEW_ID as HarnessId);
    expect(await harness.discover()).toMatchObject({ found: true, binary: { version: '1.0.0' } });
    const session: Session = await harness.createSession({ cwd: root });
    const events: ReinsEvent[] = [];
    void (async () => {
      for await (const event of session.events) events.push(event);
    })();
    try {
      await session.send('ping');
      await until(() => events.some((event) => event.type === 'turn.completed'), 'the turn to complete', 20_000);
      const answer = events.find((event) => event.type === 'item.completed' && event.item.kind === 'agent_message');
      expect(answer).toMatchObject({ item: { text: 'hello: ping' } });
      expect(events.find((event) => event.type === 'turn.completed')).toMatchObject({
        outcome: { status: 'completed' },
      });
      expect(new Set(events.map((event) => event.harness))).toEqual(new Set([NEW_ID]));
    } finally {
      await session.close();
    }
  });

  it("its shell tool joins the scripted model server's table when its manifest is handed over, and only then", () => {
    const shell = harnessToolRecipes(withTemplate).shell.find((recipe) => recipe.tool === 'run');
    expect(shell?.harnesses).toBe('Line template');
    expect(harnessToolRecipes().shell.map((recipe) => recipe.tool)).not.toContain('run');
  });

  it('is a conformance target when its manifest is handed over, and only then', () => {
    expect(conformanceTargetIds(withTemplate)).toContain(NEW_ID);
    expect(conformanceTargetIds()).not.toContain(NEW_ID);
    expect(conformanceTargetIds(withTemplate)).toEqual([...conformanceTargetIds(), NEW_ID]);
  });
});
