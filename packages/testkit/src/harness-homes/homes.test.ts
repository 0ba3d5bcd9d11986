// What the Pi, OpenClaw, claude-agent-acp and codex-acp home builders write for model prices and extra models. No CLI runs:
// a stand-in binary, and the config the harness would read is checked as written.
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HarnessBinary } from '../hermetic/binaries.js';
import { makeTempHome, type TempHome } from '../hermetic/temp-home.js';
import { buildHarnessHome } from './build.js';
import type { HarnessHomeOptions } from './types.js';

const standIn = (id: HarnessBinary['id']): HarnessBinary => ({
  id,
  pin: 'current',
  packageName: id,
  version: '0.0.0-test',
  command: '/bin/true',
  args: [],
  pathDirs: [],
});

let tempHome: TempHome;
beforeEach(async () => {
  tempHome = await makeTempHome('reins-homes-test-');
});
afterEach(async () => {
  await tempHome.cleanup();
});

const modelServerUrl = 'http://127.0.0.1:1';

describe("buildHarnessHome('pi')", () => {
  async function piModels(options: Partial<HarnessHomeOptions> = {}) {
    const home = await buildHarnessHome('pi', { modelServerUrl, tempHome, binary: standIn('pi'), ...options });
    const modelsJson = home.files.find((file) => file.endsWith('models.json')) as string;
    const config = JSON.parse(await readFile(modelsJson, 'utf8'));
    return config.providers.fake.models as Array<{ id: string; cost: Record<string, number> }>;
  }

  it('prices every model with modelPrice, so Pi can report a cost', async () => {
    const models = await piModels({ extraModels: ['fake-model-2'], modelPrice: { input: 3, output: 15 } });
    expect(models.map((model) => [model.id, model.cost])).toEqual([
      ['fake-model', { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 }],
      ['fake-model-2', { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 }],
    ]);
  });

  it('configures free models without a price', async () => {
    const [model] = await piModels();
    expect(model?.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });
});

describe("buildHarnessHome('claude-agent-acp')", () => {
  it('lists one extra model through ANTHROPIC_CUSTOM_MODEL_OPTION', async () => {
    const home = await buildHarnessHome('claude-agent-acp', {
      modelServerUrl,
      tempHome,
      binary: standIn('claude-agent-acp'),
      extraModels: ['fake-model-2'],
    });
    expect(home.models).toEqual(['fake-model', 'fake-model-2']);
    expect(home.env).toMatchObject({ ANTHROPIC_MODEL: 'fake-model', ANTHROPIC_CUSTOM_MODEL_OPTION: 'fake-model-2' });
  });

  it('sets no custom model without extra models', async () => {
    const home = await buildHarnessHome('claude-agent-acp', {
      modelServerUrl,
      tempHome,
      binary: standIn('claude-agent-acp'),
    });
    expect(home.env).not.toHaveProperty('ANTHROPIC_CUSTOM_MODEL_OPTION');
  });

  it('refuses more extra models than claude-agent-acp can list, saying how many it takes', async () => {
    await expect(
      buildHarnessHome('claude-agent-acp', {
        modelServerUrl,
        tempHome,
        binary: standIn('claude-agent-acp'),
        extraModels: ['fake-model-2', 'fake-model-3'],
      }),
    ).rejects.toThrow(/one extra model .* not 2: fake-model-2, fake-model-3/);
  });
});

describe("buildHarnessHome('openclaw')", () => {
  it('prices every model with modelPrice, so OpenClaw can report a cost', async () => {
    const home = await buildHarnessHome('openclaw', {
      modelServerUrl,
      tempHome,
      binary: standIn('openclaw'),
      extraModels: ['fake-model-2'],
      modelPrice: { input: 3, output: 15 },
    });
    const config = JSON.parse(await readFile(home.files[0] as string, 'utf8'));
    const models = config.models.providers.fake.models as Array<{ id: string; cost: Record<string, number> }>;
    expect(models.map((model) => [model.id, model.cost])).toEqual([
      ['fake-model', { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 }],
      ['fake-model-2', { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 }],
    ]);
  });
});

describe("buildHarnessHome('codex-acp')", () => {
  it("writes a catalog codex-acp 0.16.0's older Codex core parses, and the fake provider config", async () => {
    const home = await buildHarnessHome('codex-acp', {
      modelServerUrl,
      tempHome,
      binary: standIn('codex-acp'),
      extraModels: ['fake-model-2'],
    });
    expect(home.models).toEqual(['fake-model', 'fake-model-2']);
    expect(home.env.CODEX_HOME).toBe(`${tempHome.home}/.codex`);
    const catalogPath = home.files.find((file) => file.endsWith('models.json')) as string;
    const catalog = JSON.parse(await readFile(catalogPath, 'utf8')) as { models: Record<string, unknown>[] };
    expect(catalog.models.map((model) => model.slug)).toEqual(['fake-model', 'fake-model-2']);
    for (const model of catalog.models) {
      // 0.16.0 refuses `max` (an unknown variant) and requires these two fields.
      const efforts = (model.supported_reasoning_levels as { effort: string }[]).map((level) => level.effort);
      expect(efforts).not.toContain('max');
      expect(model).toHaveProperty('supports_reasoning_summaries');
      expect(model).toHaveProperty('supports_parallel_tool_calls');
    }
    const configPath = home.files.find((file) => file.endsWith('config.toml')) as string;
    const config = await readFile(configPath, 'utf8');
    expect(config).toContain('base_url = "http://127.0.0.1:1/v1"');
    expect(config).toContain(`model_catalog_json = ${JSON.stringify(catalogPath)}`);
  });
});
