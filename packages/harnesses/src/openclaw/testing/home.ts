// OpenClaw's hermetic home (2026.9.6, Node >= 24.16): a local gateway whose default agent uses a `fake` chat-completions
// provider; state and config inside the temp home; Node 24 from harness-clis first on PATH (docs/harnesses/openclaw.md).
//
// Isolation: OpenClaw ignores TMPDIR and writes /tmp/openclaw (logs) and /tmp/openclaw-state-locks-<uid>
// (2026.9.6). The builder therefore returns a `wrapper` that runs the gateway in its own mount namespace
// where /tmp is a folder of this temp home (the temp home itself stays reachable at its usual path), so
// tests never share or leave those paths and never touch a real OpenClaw's files on the machine.
//
// Quirks seen on 2026.9.6: the port opens 15-19 s after spawn; `connect` then answers UNAVAILABLE
// (startup-sidecars) and closes with 1013 for 1-3 s; prints "[postinstall] fs-safe native support is
// unavailable" because npm ran no scripts (harmless).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { HomeBuilder } from '../../testing.js';
import { gatewayRunArgs } from '../gateway.js';

export const buildHome: HomeBuilder = async (options, kit) => {
  const models = kit.modelList(options.model ?? kit.defaultModel, options.extraModels);
  const [model] = models as [string];
  const home = options.tempHome.home;
  const stateDir = join(home, '.openclaw');
  const port = await kit.freeLoopbackPort();
  const token = randomBytes(16).toString('hex');
  const configPath = await kit.writeConfig(join(stateDir, 'openclaw.json'), {
    gateway: { mode: 'local' },
    // Every switch the openclaw package's docs/gateway/telemetry.md and docs/gateway/config-runtime.md (2026.9.6) name for outside traffic: the
    // daily update check, anonymous statistics, the hosted model catalog refresh (seen attempted without
    // it: "remote model catalog refresh failed"), mDNS advertising.
    update: { checkOnStart: false },
    telemetry: { enabled: false },
    discovery: { mdns: { mode: 'off' } },
    agents: {
      defaults: {
        // Tools work in the gateway's working directory, which is the session's cwd (the adapter starts
        // one gateway per session there); without it 2026.9.6 works in <state-dir>/workspace and refuses
        // the session's files: "Path escapes sandbox root ($OPENCLAW_HOME/.openclaw/workspace)".
        cwd: '.',
        model: { primary: `fake/${model}` },
        models: Object.fromEntries(models.map((id) => [`fake/${id}`, { alias: id }])),
      },
    },
    models: {
      mode: 'merge',
      catalogRefresh: { enabled: false },
      providers: {
        fake: {
          baseUrl: `${options.modelServerUrl}/v1`,
          api: 'openai-completions',
          apiKey: kit.fakeApiKey,
          models: models.map((id) => ({
            id,
            name: id,
            reasoning: false,
            input: ['text'],
            cost: {
              input: options.modelPrice?.input ?? 0,
              output: options.modelPrice?.output ?? 0,
              cacheRead: options.modelPrice?.cacheRead ?? 0,
              cacheWrite: options.modelPrice?.cacheWrite ?? 0,
            },
            contextWindow: 128_000,
            maxTokens: 8_192,
          })),
        },
      },
    },
  });
  return {
    env: {
      ...kit.baseEnvironment(options.binary, options.tempHome),
      OPENCLAW_HOME: home,
      OPENCLAW_STATE_DIR: stateDir,
      OPENCLAW_CONFIG_PATH: configPath,
      OPENCLAW_NO_RESPAWN: '1',
      OPENCLAW_NO_AUTO_UPDATE: '1',
      DO_NOT_TRACK: '1',
      OPENCLAW_DISABLE_BONJOUR: '1',
      OPENCLAW_SKIP_CHANNELS: '1',
      OPENCLAW_SKIP_GMAIL_WATCHER: '1',
      OPENCLAW_SKIP_BROWSER_CONTROL_SERVER: '1',
      OPENCLAW_SKIP_CANVAS_HOST: '1',
      OPENCLAW_SKIP_CRON: '1',
      OPENCLAW_SKIP_STARTUP_MODEL_PREWARM: '1',
      // V8 code cache only (no state), shared across tests: with a fresh TMPDIR per test every start compiles
      // the whole 420 MB package again, which alone cost tens of seconds per gateway start on 2 cores.
      NODE_COMPILE_CACHE: join(kit.harnessClisDir(), 'node_modules', '.cache', 'reins-node-compile-cache'),
    },
    args: gatewayRunArgs(port, token),
    home,
    models,
    files: [configPath],
    wrapper: kit.privateTmpWrapper(options.tempHome),
    endpoint: { url: `ws://127.0.0.1:${port}`, token },
  };
};
