// Real tier, hermetic: the official `@openai/codex-sdk` (pinned in harness-clis) drives a harness
// through the two-line `codex` shim: the SDK runs `<shim> exec --experimental-json …` once per turn
// and reads its JSONL events. First against the REAL `codex exec` on the scripted model (the
// calibration: the same script, the same assertions), then the shim in front of the real Pi and Claude Code:
// `run`, `runStreamed` events, `resumeThread` in a new process, structured output, an image, and
// abort through an AbortSignal.
// Run: node packages/testkit/bin/hermetic.mjs -- npx vitest run --project real packages/bridges/test/codex-sdk.real.test.ts
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { harnessBinary, harnessClisDir, reply } from '@reins/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { codexShim, type RealBridgeHome, realBridgeHome } from './support/real-bridge.js';

interface SdkEvent {
  type: string;
  thread_id?: string;
  item?: { id: string; type: string; text?: string; command?: string; aggregated_output?: string };
  usage?: { input_tokens: number; output_tokens: number };
  error?: { message: string };
}
interface SdkThread {
  readonly id: string | null;
  run(
    input: string | unknown[],
    options?: { outputSchema?: unknown; signal?: AbortSignal },
  ): Promise<{
    finalResponse: string;
    items: SdkEvent['item'][];
    usage: unknown;
  }>;
  runStreamed(input: string, options?: { signal?: AbortSignal }): Promise<{ events: AsyncGenerator<SdkEvent> }>;
}
interface SdkCodex {
  startThread(options?: Record<string, unknown>): SdkThread;
  resumeThread(id: string, options?: Record<string, unknown>): SdkThread;
}
type CodexClass = new (options: { codexPathOverride: string; env: Record<string, string> }) => SdkCodex;

async function loadSdk(): Promise<CodexClass> {
  const entry = join(harnessClisDir(), 'node_modules/@openai/codex-sdk/dist/index.js');
  return ((await import(pathToFileURL(entry).href)) as { Codex: CodexClass }).Codex;
}

const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==',
  'base64',
);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The script both `codex` binaries must pass. */
async function drive(Codex: CodexClass, codexPath: string, home: RealBridgeHome): Promise<void> {
  const { server } = home;
  const codex = new Codex({ codexPathOverride: codexPath, env: home.env });
  const options = { workingDirectory: home.cwd, skipGitRepoCheck: true };
  const thread = codex.startThread(options);

  server.when('sdk first turn', reply().text('Hello from the SDK turn'));
  const first = await thread.run('sdk first turn');
  expect(first.finalResponse).toBe('Hello from the SDK turn');
  expect(thread.id).toMatch(/\S/);

  server.when('sdk streamed turn', reply().shell('echo sdk-shell-$((40+2))'));
  server.when(/sdk-shell-42/, reply().text('The command printed its line'), { in: 'body' });
  const { events } = await thread.runStreamed('sdk streamed turn');
  const seen: SdkEvent[] = [];
  for await (const event of events) seen.push(event);
  console.info(`events: ${seen.map((event) => `${event.type}${event.item ? `(${event.item.type})` : ''}`).join(' ')}`);
  expect(seen[0]?.type).toBe('thread.started');
  expect(seen.map((event) => event.type)).toContain('turn.started');
  const command = seen.find((event) => event.type === 'item.completed' && event.item?.type === 'command_execution');
  expect(command?.item?.aggregated_output).toContain('sdk-shell-42');
  const last = seen.at(-1);
  expect(last?.type).toBe('turn.completed');
  expect(typeof last?.usage?.output_tokens).toBe('number');
  // Each exec is a new process resuming the thread; behind Pi its running total is then unknown (Pi
  // reports each request, not the conversation's total), so no usage is sent: zeros, not made up.
  if (home.target !== 'pi') expect(last?.usage?.output_tokens).toBeGreaterThan(0);
  const answer = seen.filter((event) => event.type === 'item.completed' && event.item?.type === 'agent_message');
  expect(answer.at(-1)?.item?.text).toBe('The command printed its line');

  // A new process resumes the conversation: the model sees the first turn.
  const resumed = codex.resumeThread(thread.id as string, options);
  server.when('sdk resumed turn', reply().text('Resumed answer'));
  expect((await resumed.run('sdk resumed turn')).finalResponse).toBe('Resumed answer');
  const resumedRequest = server.requests.find((request) => JSON.stringify(request.body).includes('sdk resumed turn'));
  expect(JSON.stringify(resumedRequest?.body)).toContain('sdk first turn');

  // Structured output: the schema reaches the model, the answer is the JSON.
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  };
  server.when('sdk structured turn', reply().json({ city: 'Lisbon' }));
  const structured = await resumed.run('sdk structured turn', { outputSchema: schema });
  expect(JSON.parse(structured.finalResponse)).toEqual({ city: 'Lisbon' });

  // An image travels with the prompt.
  const image = join(home.cwd, 'pixel.png');
  await writeFile(image, PNG_1PX);
  server.when(/sdk image turn/, reply().text('I see a pixel'), { in: 'body' });
  const pictured = await resumed.run([
    { type: 'text', text: 'sdk image turn' },
    { type: 'local_image', path: image },
  ]);
  expect(pictured.finalResponse).toBe('I see a pixel');
  const imageRequest = server.requests.find((request) => JSON.stringify(request.body).includes('sdk image turn'));
  expect(JSON.stringify(imageRequest?.body)).toMatch(/image/);

  // Abort: the signal ends the run (the process is killed) without an answer.
  server.when(
    'sdk abort turn',
    reply()
      .text(Array.from({ length: 400 }, (_, i) => `w${i}`).join(' '))
      .delayMs(200),
  );
  const controller = new AbortController();
  const aborted = thread.runStreamed('sdk abort turn', { signal: controller.signal });
  const stream = (await aborted).events;
  let abortError: unknown;
  try {
    for await (const event of stream) if (event.type === 'turn.started') controller.abort();
  } catch (error) {
    abortError = error;
  }
  expect(String(abortError)).toMatch(/abort/i);
}

describe('@openai/codex-sdk through `codex exec --experimental-json`', () => {
  it('calibration: drives the real codex exec on the scripted model', async () => {
    const Codex = await loadSdk();
    const home = await realBridgeHome('codex');
    cleanups.push(() => home.dispose());
    await drive(Codex, harnessBinary('codex').command, home);
  }, 300_000);

  it('drives the real Pi through the shim', async () => {
    const Codex = await loadSdk();
    const home = await realBridgeHome('pi');
    cleanups.push(() => home.dispose());
    await drive(Codex, await codexShim(home), home);
  }, 300_000);

  it('drives the real Claude Code through the shim', async () => {
    const Codex = await loadSdk();
    const home = await realBridgeHome('claude-code');
    cleanups.push(() => home.dispose());
    await drive(Codex, await codexShim(home), home);
  }, 300_000);
});
