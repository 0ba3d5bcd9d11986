// Conformance behaviour of posture `workspace` (docs/architecture/contract.md, "Postures"): the scripted model
// has the harness's shell write one file in the cwd and one in the test user's home (outside the cwd and
// outside every temp folder a sandbox allows); the first lands, the second does not, the turn completes and
// the refusal reached the model. Where the posture cannot run here (no bwrap, no socat: what `reins doctor`
// checks) createSession refuses it and the behaviour is skipped.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReinsError } from '@reins/core';
import { reply } from '../model-server/index.js';
import { type Behaviour, check, NotApplicableHere } from './behaviour-kit.js';
import type { SessionRecorder } from './recorder.js';

const INSIDE = 'workspace-inside.txt';
const PROMPT = 'Write one file here and one in the home folder.';
/** What a shell says when a sandbox stops its write (bubblewrap and Landlock: EROFS; others: EPERM/EACCES). */
const REFUSAL = /Read-only file system|Permission denied|Operation not permitted/;
/** A turn's deadline: three model calls, on a loaded 2-CPU machine. */
const TURN_MS = 180_000;

export const WORKSPACE_BEHAVIOURS: Behaviour[] = [
  {
    name: 'workspace posture blocks a write outside the cwd and allows one inside',
    evidences: 'sandbox',
    requires: ['sandbox'],
    async run({ server, open, workdir }) {
      const outside = join(homedir(), `reins-conformance-outside-${randomUUID()}.txt`);
      check(!outside.startsWith(`${tmpdir()}/`), `the home folder ${homedir()} is under the temp folder`);
      try {
        server.enqueue(
          reply().shell(`echo inside > ${INSIDE}`),
          reply().shell(`echo outside > ${outside}`),
          reply().text('One write landed, one was refused.'),
        );
        let recorder: SessionRecorder;
        try {
          recorder = await open({ posture: 'workspace' });
        } catch (error) {
          if (ReinsError.isInstance(error) && error.code === 'unsupported_capability') {
            throw new NotApplicableHere(`posture workspace cannot run here: ${error.message}`);
          }
          throw error;
        }
        const from = server.requests.length;
        const terminal = await recorder.turn(PROMPT, {}, TURN_MS);
        check(terminal.outcome.status === 'completed', `the turn ended ${JSON.stringify(terminal.outcome)}`);
        const inside = join(workdir, INSIDE);
        check(existsSync(inside), `the write inside the cwd did not land (no ${INSIDE})`);
        check(
          readFileSync(inside, 'utf8') === 'inside\n',
          `${INSIDE} holds ${JSON.stringify(readFileSync(inside, 'utf8'))}`,
        );
        check(!existsSync(outside), `the write outside the cwd landed: ${outside}`);
        const told = server.requests.slice(from).some((request) => REFUSAL.test(JSON.stringify(request.body ?? '')));
        check(told, 'no model request after the refused command carries the refusal (EROFS, EPERM or EACCES)');
        await recorder.close();
        return ['sandbox'];
      } finally {
        rmSync(outside, { force: true });
      }
    },
  },
];
