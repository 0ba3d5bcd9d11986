// The conformance suite: one list of named behaviours (docs/architecture/contract.md, "Test tiers") that any harness must
// show through the public Session API, driven by the scripted model server. Each behaviour throws
// with a reason when it fails and returns the capabilities it demonstrated (evidence).
import {
  type CapabilityKey,
  ReinsError,
  type ReinsEvent,
  type ToolCallItem,
  type TurnCompletedEvent,
} from '@reins/core';
import { reply } from '../model-server/index.js';
import { agentText, type Behaviour, check, completedItems, fail, limitation } from './behaviour-kit.js';
import { CHECKPOINT_BEHAVIOURS } from './checkpoint-behaviours.js';
import { HARNESS_STATE_BEHAVIOURS } from './harness-state-behaviours.js';
import { canTrackProcesses, ProcessGroupWatch } from './processes.js';
import type { SessionRecorder } from './recorder.js';
import { WORKSPACE_BEHAVIOURS } from './workspace-behaviours.js';

export type { Behaviour, BehaviourContext } from './behaviour-kit.js';
export { HarnessLimitation } from './behaviour-kit.js';

/** Capabilities a plain text turn shows beyond the turn itself. */
function streamingEvidence(events: readonly ReinsEvent[]): CapabilityKey[] {
  const shown: CapabilityKey[] = [];
  if (events.some((e) => e.type === 'item.delta' && e.kind === 'text')) shown.push('tokenDeltas');
  const usage = events.flatMap((e) =>
    e.type === 'usage.updated' ? [e] : e.type === 'turn.completed' && e.usage ? [e.usage] : [],
  );
  if (usage.some((u) => u.turn?.input !== undefined || u.total?.input !== undefined)) shown.push('usage');
  if (usage.some((u) => u.costUsd !== undefined)) shown.push('cost');
  if (usage.some((u) => u.context?.window !== undefined)) shown.push('contextWindow');
  return shown;
}

const WORD = 'Conformance says hello.';
const PROVIDER_ERROR_DEADLINE_MS = 120_000;
/** How long a closed session's processes may take to be gone. */
const ORPHAN_DEADLINE_MS = 10_000;

export const BEHAVIOURS: Behaviour[] = [
  {
    name: 'text turn',
    async run({ server, open }) {
      server.enqueue(reply().text(WORD).usage({ input: 21, output: 5 }));
      const recorder = await open();
      const terminal = await recorder.turn('Say the conformance greeting.');
      check(terminal.outcome.status === 'completed', `outcome ${JSON.stringify(terminal.outcome)}`);
      const events = recorder.turnEvents(terminal.turnId as string);
      check(agentText(events).includes(WORD), `agent text was ${JSON.stringify(agentText(events))}`);
      await recorder.close();
      return streamingEvidence(events);
    },
  },
  {
    name: 'tool call lifecycle',
    async run({ server, open }) {
      server.enqueue(reply().shell('echo conformance-tool-ok'), reply().text('The command ran.'));
      const recorder = await open();
      const terminal = await recorder.turn('Run the check command.');
      check(terminal.outcome.status === 'completed', `outcome ${JSON.stringify(terminal.outcome)}`);
      const events = recorder.turnEvents(terminal.turnId as string);
      const started = events.flatMap((e) => (e.type === 'item.started' && e.item.kind === 'tool_call' ? [e.item] : []));
      const done = completedItems(events).filter((item): item is ToolCallItem => item.kind === 'tool_call');
      const command = done.find((item) => item.tool.kind === 'command');
      check(
        command,
        `no completed command tool_call (tools: ${done.map((t) => `${t.tool.kind}:${t.tool.name}`).join(', ') || 'none'})`,
      );
      check(
        started.some((item) => item.id === command.id),
        `tool_call ${command.id} completed without item.started`,
      );
      check(command.status === 'completed', `command status ${command.status}`);
      await recorder.close();
      if (command.output === undefined) limitation('the harness reported no output for the command (left absent)');
      check(
        (command.output.text ?? JSON.stringify(command.output.structured ?? '')).includes('conformance-tool-ok'),
        `command output was ${JSON.stringify(command.output)}`,
      );
      return [];
    },
  },
  {
    name: 'interrupt',
    evidences: 'interrupt',
    requires: ['interrupt'],
    async run({ server, open }) {
      server.enqueue(reply().text('Working on it').stall());
      const recorder = await open();
      const sent = await recorder.session.send('Start a long answer.');
      await server.waitForRequests(1, { timeoutMs: 60_000 });
      await recorder
        .waitFor((e) => e.type === 'item.delta' || e.type === 'item.started', 'the turn to stream', 30_000)
        .catch(() => {});
      await recorder.session.interrupt();
      const terminal = await recorder.terminalOf(sent, 0, 30_000);
      check(terminal.outcome.status === 'cancelled', `outcome after interrupt ${JSON.stringify(terminal.outcome)}`);
      server.enqueue(reply().text('Back after the interrupt.'));
      const next = await recorder.turn('Are you still there?');
      check(next.outcome.status === 'completed', `turn after interrupt ${JSON.stringify(next.outcome)}`);
      await recorder.close();
      return ['interrupt'];
    },
  },
  {
    name: 'resume in a new process',
    evidences: 'resume',
    requires: ['resume'],
    async run({ server, open }) {
      server.enqueue(reply().text('Noted the code word.'));
      const first = await open();
      await first.turn('Remember the code word ZEBRA-4417.');
      const nativeSessionId = first.session.nativeSessionId;
      check(nativeSessionId, 'no nativeSessionId after the first turn');
      await first.close();
      const before = server.requests.length;
      server.enqueue(reply().text('The code word was ZEBRA-4417.'));
      let second: SessionRecorder;
      let terminal: TurnCompletedEvent;
      try {
        second = await open({ resume: { nativeSessionId } });
        terminal = await second.turn('What was the code word?');
      } catch (thrown) {
        // Principle 6: a resume that cannot continue fails with resume_failed, never a silent fresh start.
        if (ReinsError.isInstance(thrown) && thrown.code === 'resume_failed') limitation(thrown.message);
        throw thrown;
      }
      if (terminal.outcome.status === 'failed' && terminal.outcome.error.code === 'resume_failed') {
        limitation(terminal.outcome.error.message);
      }
      check(terminal.outcome.status === 'completed', `resumed turn ${JSON.stringify(terminal.outcome)}`);
      const sentHistory = server.requests
        .slice(before)
        .some((r) => r.scripted && JSON.stringify(r.body).includes('ZEBRA-4417'));
      check(sentHistory, 'the resumed session did not send the earlier conversation to the model');
      check(
        second.session.nativeSessionId === nativeSessionId,
        `native id changed to ${second.session.nativeSessionId}`,
      );
      await second.close();
      return ['resume'];
    },
  },
  {
    name: 'model switch',
    evidences: 'liveModelSwitch',
    async run({ server, open, setup }) {
      server.enqueue(reply().text('First model here.'), reply().text('Second model here.'));
      const recorder = await open();
      await recorder.turn('Hello on the first model.');
      const change = await recorder.session.setModel(setup.models.alternate);
      const before = server.requests.length;
      const terminal = await recorder.turn('Hello on the second model.');
      check(terminal.outcome.status === 'completed', `turn after switch ${JSON.stringify(terminal.outcome)}`);
      const models = server.requests
        .slice(before)
        .filter((r) => r.scripted)
        .map((r) => r.model);
      const expected = setup.models.alternateOnWire ?? setup.models.alternate;
      check(
        models.some((model) => model?.includes(expected)),
        `the model server saw ${JSON.stringify(models)}, not ${expected}`,
      );
      await recorder.close();
      return change.applied === 'live' || change.applied === 'next_turn' ? ['liveModelSwitch'] : [];
    },
  },
  {
    name: 'steer or queue',
    async run({ server, open, implemented }) {
      server.enqueue(reply().text('First answer, slowly.').delayMs(150), reply().text('Second answer.'));
      const recorder = await open();
      const first = await recorder.session.send('First question.');
      await server.waitForRequests(1, { timeoutMs: 60_000 });
      const mode = implemented.has('steer') ? 'steer' : 'queue';
      const second = await recorder.session.send('Second question.', { mode });
      if (mode === 'queue') {
        check(second.delivery === 'queued' || second.delivery === 'started', `queue delivery ${second.delivery}`);
        const a = await recorder.terminalOf(first);
        const b = await recorder.terminalOf(second);
        check(a.outcome.status === 'completed' && b.outcome.status === 'completed', 'a queued turn did not complete');
        check(a.seq < b.seq, 'the queued turn ended before the first one');
      } else {
        const terminal = await recorder.terminalOf(first);
        check(terminal.outcome.status === 'completed', `steered turn ${JSON.stringify(terminal.outcome)}`);
        check(
          server.requests.some((r) => r.scripted && JSON.stringify(r.body).includes('Second question.')),
          'the steer text never reached the model',
        );
      }
      await recorder.close();
      return [mode === 'steer' ? 'steer' : 'queue'];
    },
  },
  {
    name: 'structured output',
    evidences: 'structuredOutput',
    requires: ['structuredOutput'],
    async run({ server, open }) {
      const schema = {
        type: 'object',
        properties: { verdict: { enum: ['pass', 'fail'] }, reasons: { type: 'array', items: { type: 'string' } } },
        required: ['verdict'],
        additionalProperties: false,
      };
      server.enqueue(reply().json({ verdict: 'pass', reasons: ['scripted'] }));
      const recorder = await open();
      const ok = await recorder.turn('Give the verdict.', { outputSchema: schema });
      check(ok.outcome.status === 'completed', `valid structured turn ${JSON.stringify(ok.outcome)}`);
      check(
        JSON.stringify(ok.structuredOutput) === JSON.stringify({ verdict: 'pass', reasons: ['scripted'] }),
        `structuredOutput ${JSON.stringify(ok.structuredOutput)}`,
      );
      // Harnesses that validate themselves ask again (Claude Code 2.1.197 up to five times): script every
      // retry, so the turn ends on the harness's own verdict rather than on unscripted default replies.
      for (let i = 0; i < 6; i++) server.enqueue(reply().json({ verdict: 'maybe' }));
      const bad = await recorder.turn('Give the verdict again.', { outputSchema: schema });
      server.reset();
      check(
        bad.outcome.status === 'failed' && bad.outcome.error.code === 'structured_output_invalid',
        `invalid structured reply gave ${JSON.stringify(bad.outcome)}`,
      );
      await recorder.close();
      return ['structuredOutput'];
    },
  },
  {
    name: 'provider error surfaced',
    async run({ server, open }) {
      // A request the provider rejects outright (400) on every call. Sustained 5xx would test each
      // harness's own retry policy instead (minutes for some: Gemini, Qwen); the adapters' real tests
      // cover how they report retries where it matters (Copilot).
      server.when(() => true, reply().httpError(400, undefined), { persistent: true });
      const recorder = await open();
      const sent = await recorder.session.send('This request will be rejected.');
      const terminal = await recorder.terminalOf(sent, 0, PROVIDER_ERROR_DEADLINE_MS).catch(async (timedOut) => {
        // Still retrying at the deadline: the harness, not Reins, holds the failure back. What Reins
        // owes then is a turn the caller can still end.
        await recorder.session.interrupt();
        const stopped = await recorder.terminalOf(sent, 0, 30_000);
        if (stopped.outcome.status !== 'cancelled') throw timedOut;
        await recorder.close();
        limitation(
          `no terminal within ${PROVIDER_ERROR_DEADLINE_MS / 1000} s of HTTP 400 on every call (the harness keeps retrying); interrupt() ended the turn`,
        );
      });
      server.reset();
      check(terminal.outcome.status === 'failed', `outcome on HTTP 400 ${JSON.stringify(terminal.outcome)}`);
      check(
        terminal.outcome.error.code === 'provider_error',
        `HTTP 400 gave ${terminal.outcome.error.code}: ${terminal.outcome.error.message}`,
      );
      check(terminal.outcome.error.message.trim() !== '', 'the failure has no message');
      await recorder.close();
      return [];
    },
  },
  {
    name: 'unsupported model',
    async run({ server, open }) {
      for (let i = 0; i < 3; i++) server.enqueue(reply().httpError(404, undefined));
      // A harness may refuse the model when the session starts (it knows its models) or on the first
      // turn (the provider says 404): either way the error is unsupported_model.
      let error: { code: string; message: string };
      let recorder: SessionRecorder | undefined;
      try {
        recorder = await open({ model: 'no-such-model-xyz' });
        const terminal = await recorder.turn('Hello?', {}, 120_000);
        check(terminal.outcome.status === 'failed', `outcome for an unknown model ${JSON.stringify(terminal.outcome)}`);
        error = terminal.outcome.error;
      } catch (thrown) {
        if (!ReinsError.isInstance(thrown)) throw thrown;
        error = thrown;
      }
      check(error.code === 'unsupported_model', `an unknown model gave ${error.code}: ${error.message}`);
      check(error.message.includes('unsupported model'), 'message lacks "unsupported model"');
      server.reset();
      await recorder?.close();
      return [];
    },
  },
  {
    name: 'no orphan process after close',
    async run({ server, open }) {
      if (!canTrackProcesses) fail('process tracking needs Linux /proc');
      server.enqueue(reply().shell('sleep 30 & echo started-background'), reply().text('Started.'));
      const watch = new ProcessGroupWatch();
      const recorder = await open();
      watch.sample();
      await recorder.turn('Start a background job.');
      watch.sample();
      await recorder.close();
      check(watch.groupCount > 0, 'no child process group was seen while the session lived');
      // A group's last processes may still be exiting when close() resolves (seen on OpenClaw's gateway on
      // a loaded machine): waited for with a deadline, never sampled once.
      let survivors = watch.survivors();
      for (const deadline = Date.now() + ORPHAN_DEADLINE_MS; survivors.length > 0 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        survivors = watch.survivors();
      }
      check(
        survivors.length === 0,
        `processes survived close() by ${ORPHAN_DEADLINE_MS / 1000} s: ${survivors.map((s) => s.pid).join(', ')}`,
      );
      return [];
    },
  },
  ...HARNESS_STATE_BEHAVIOURS,
  ...CHECKPOINT_BEHAVIOURS,
  ...WORKSPACE_BEHAVIOURS,
];
