// harnessBinary(): the error that names the setup command when harness-clis is not installed, and the
// previous pin found under its npm alias with its nested platform package.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HARNESS_IDS,
  HarnessNotInstalledError,
  harnessBinary,
  harnessPackageName,
  pinnedVersion,
  pinnedVersions,
} from './binaries.js';
import { makeTempHome } from './temp-home.js';

describe('harnessBinary', () => {
  let empty = '';
  afterAll(async () => {
    if (empty) await rm(empty, { recursive: true, force: true });
  });

  it.each(HARNESS_IDS)('%s: names `npm run setup:harnesses` when not installed', async (id) => {
    empty ||= await mkdtemp(join(tmpdir(), 'reins-no-clis-'));
    expect(() => harnessBinary(id, empty)).toThrow(HarnessNotInstalledError);
    expect(() => harnessBinary(id, empty)).toThrow(/npm run setup:harnesses/);
  });
});

describe('makeTempHome', () => {
  it('creates HOME and TMPDIR under one folder and removes it', async () => {
    const temp = await makeTempHome();
    expect(temp.home.startsWith(temp.dir)).toBe(true);
    expect(temp.tmp.startsWith(temp.dir)).toBe(true);
    await temp.cleanup();
    const { existsSync } = await import('node:fs');
    expect(existsSync(temp.dir)).toBe(false);
  });
});

describe('two pins', () => {
  let root = '';
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** A harness-clis layout: the current Claude Code hoisted, the previous one under its alias with a nested platform package. */
  async function layout(): Promise<string> {
    root = await mkdtemp(join(tmpdir(), 'reins-two-pins-'));
    const cpu = process.arch === 'arm64' ? 'arm64' : 'x64';
    const put = async (path: string, content: string) => {
      await mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), content);
    };
    await put(
      'package.json',
      JSON.stringify({
        dependencies: {
          '@anthropic-ai/claude-code': '2.1.332',
          '@anthropic-ai/claude-code-previous': 'npm:@anthropic-ai/claude-code@2.1.197',
        },
      }),
    );
    await put('node_modules/@anthropic-ai/claude-code/package.json', '{"version":"2.1.332"}');
    await put(`node_modules/@anthropic-ai/claude-code-linux-${cpu}/claude`, 'new');
    const alias = 'node_modules/@anthropic-ai/claude-code-previous';
    await put(`${alias}/package.json`, '{"version":"2.1.197"}');
    await put(`${alias}/node_modules/@anthropic-ai/claude-code-linux-${cpu}/claude`, 'old');
    return root;
  }

  it('finds the previous pin under its alias, with its own nested platform package', async () => {
    const dir = await layout();
    const current = harnessBinary('claude-code', dir);
    const previous = harnessBinary('claude-code', dir, 'previous');
    expect(current).toMatchObject({ pin: 'current', version: '2.1.332', packageName: '@anthropic-ai/claude-code' });
    expect(previous).toMatchObject({ pin: 'previous', version: '2.1.197', packageName: '@anthropic-ai/claude-code' });
    expect(previous.command).toContain('claude-code-previous/node_modules/@anthropic-ai/claude-code-linux-');
    expect(current.command).not.toContain('previous');
    expect(pinnedVersion('claude-code', 'previous', dir)).toBe('2.1.197');
    expect(pinnedVersions(dir)['@anthropic-ai/claude-code-previous']).toBe('2.1.197');
  });

  it('finds a moved agent: the new scope is the current pin, the old package the previous one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reins-moved-pin-'));
    try {
      const put = async (path: string, content: string) => {
        await mkdir(join(dir, path, '..'), { recursive: true });
        await writeFile(join(dir, path), content);
      };
      await put(
        'package.json',
        JSON.stringify({
          dependencies: {
            '@agentclientprotocol/claude-agent-acp': '0.101.0',
            '@zed-industries/claude-agent-acp': '0.23.1',
          },
        }),
      );
      await put('node_modules/@agentclientprotocol/claude-agent-acp/package.json', '{"version":"0.101.0"}');
      await put('node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js', '');
      await put('node_modules/@zed-industries/claude-agent-acp/package.json', '{"version":"0.23.1"}');
      await put('node_modules/@zed-industries/claude-agent-acp/dist/index.js', '');
      await put(`node_modules/node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}/bin/node`, '');
      const current = harnessBinary('claude-agent-acp', dir);
      const previous = harnessBinary('claude-agent-acp', dir, 'previous');
      expect(current).toMatchObject({ version: '0.101.0', packageName: '@agentclientprotocol/claude-agent-acp' });
      // 0.101.0 needs Node >= 22: the bundled Node, not the one running the tests.
      expect(current.command).toContain('node-linux-');
      expect(previous).toMatchObject({ version: '0.23.1', packageName: '@zed-industries/claude-agent-acp' });
      expect(previous.args[0]).toContain('@zed-industries/claude-agent-acp/dist/index.js');
      expect(pinnedVersion('claude-agent-acp', 'previous', dir)).toBe('0.23.1');
      expect(harnessPackageName('claude-agent-acp', 'previous')).toBe('@zed-industries/claude-agent-acp');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a previous pin for a harness that keeps none', () => {
    expect(() => harnessBinary('gemini', root || tmpdir(), 'previous')).toThrow(/no previous pin/);
  });
});
