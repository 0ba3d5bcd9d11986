// Conformance behaviours about a turn's effect on the files of its cwd (docs/architecture/contract.md,
// "Checkpoints"): a shell command's edit measured by the turn's checkpoint, and a revert that puts the files
// back byte for byte while the user's branch, index and stash stay as they were. One shell turn, and one
// more only where the conversation went back too: the suite runs on every pinned CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointChange, CheckpointEvent } from '@reins/core';
import { reply } from '../model-server/index.js';
import { type Behaviour, check, fail, honestly } from './behaviour-kit.js';

const WORD = 'KESTREL-5150';
const SHELL_PROMPT = `Run the edit command for ${WORD}.`;
const FOLLOW_UP = 'Which files are there now?';
const TRACKED = 'notes.txt';
const CREATED = 'created.txt';
const SHELL_EDIT = `echo shell-edit >> ${TRACKED} && echo shell-new > ${CREATED}`;
const CHECKPOINT_MS = 60_000;
/** A turn's deadline: OpenClaw 2026.9.6 took 34 s from turn.started to its first model call at load 16. */
const TURN_MS = 180_000;

/** Git for the test's own repository: the caller's GIT_* variables (a hook, a worktree) must not leak in. */
function git(cwd: string, args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_')));
  return execFileSync(
    'git',
    [
      '-c',
      'user.name=Reins Conformance',
      '-c',
      'user.email=conformance@reins.invalid',
      '-c',
      'commit.gpgsign=false',
    ].concat(args),
    { cwd, env, encoding: 'utf8' },
  );
}

/**
 * A repository with a commit, a stash and a staged change, the user's state a checkpoint must never write:
 * its branch, HEAD, index (what is staged), stash and refs outside Reins' own namespace.
 */
function makeUserRepo(dir: string): () => string {
  git(dir, ['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, TRACKED), 'first line\n');
  writeFileSync(join(dir, 'staged.txt'), 'staged base\n');
  git(dir, ['add', '--all']);
  git(dir, ['commit', '-q', '-m', 'base']);
  writeFileSync(join(dir, TRACKED), 'a stashed change\n');
  git(dir, ['stash', 'push', '-q', '-m', 'the user stash']);
  writeFileSync(join(dir, 'staged.txt'), 'a staged change\n');
  git(dir, ['add', 'staged.txt']);
  return () =>
    [
      git(dir, ['symbolic-ref', 'HEAD']),
      git(dir, ['rev-parse', 'HEAD']),
      git(dir, ['diff', '--cached']),
      git(dir, ['stash', 'list']),
      git(dir, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags', 'refs/stash']),
    ].join('\n');
}

function changeOf(changes: readonly CheckpointChange[], path: string, kind: CheckpointChange['kind'], line: string) {
  const change = changes.find((candidate) => candidate.path === path);
  check(
    change,
    `the checkpoint does not list ${path} (it lists ${changes.map((c) => c.path).join(', ') || 'nothing'})`,
  );
  check(change.kind === kind, `${path} is ${change.kind} in the checkpoint, not ${kind}`);
  check(change.diff?.includes(`+${line}`), `${path}'s diff lacks +${line}: ${JSON.stringify(change.diff)}`);
}

export const CHECKPOINT_BEHAVIOURS: Behaviour[] = [
  {
    name: 'checkpoint measures a shell edit and revert restores the files',
    evidences: 'revert',
    async run({ server, open, workdir, implemented }) {
      const userState = makeUserRepo(workdir);
      const before = userState();
      const trackedBytes = readFileSync(join(workdir, TRACKED));
      const stagedBytes = readFileSync(join(workdir, 'staged.txt'));
      server.enqueue(reply().shell(SHELL_EDIT), reply().text('Edited the notes.'));
      const recorder = await open({ checkpoints: true });
      const terminal = await recorder.turn(SHELL_PROMPT, {}, TURN_MS);
      check(terminal.outcome.status === 'completed', `shell turn ${JSON.stringify(terminal.outcome)}`);
      const turnId = terminal.turnId as string;
      check(existsSync(join(workdir, CREATED)), `the shell command did not run in the cwd (no ${CREATED})`);
      const checkpoint = await recorder.waitFor<CheckpointEvent>(
        (event) => event.type === 'checkpoint' && event.turnId === turnId,
        'the shell turn checkpoint',
        CHECKPOINT_MS,
      );
      changeOf(checkpoint.changes, TRACKED, 'modified', 'shell-edit');
      changeOf(checkpoint.changes, CREATED, 'added', 'shell-new');
      const revert = recorder.session.revert?.bind(recorder.session);
      if (!revert) fail('the session has no revert()');
      const result = await honestly(() => revert(turnId), 'revert()');
      check(
        [TRACKED, CREATED].every((path) => result.files.includes(path)),
        `revert() put back ${JSON.stringify(result.files)}`,
      );
      check(readFileSync(join(workdir, TRACKED)).equals(trackedBytes), `${TRACKED} is not back byte for byte`);
      check(readFileSync(join(workdir, 'staged.txt')).equals(stagedBytes), 'the staged file changed');
      check(!existsSync(join(workdir, CREATED)), `${CREATED}, added by the turn, is still there`);
      check(userState() === before, `the user's branch, index or stash changed:\n${before}\n---\n${userState()}`);
      const claims = implemented.has('revert');
      if (!claims) {
        check(result.conversation === 'unchanged', `conversation ${result.conversation} without the revert capability`);
        await recorder.close();
        return [];
      }
      check(result.conversation !== 'unchanged', 'the adapter implements revert, yet the conversation stayed');
      server.enqueue(reply().text('Only the notes.'));
      const from = server.requests.length;
      const next = await recorder.turn(FOLLOW_UP, {}, TURN_MS);
      check(next.outcome.status === 'completed', `turn after revert ${JSON.stringify(next.outcome)}`);
      const sent = server.requests.slice(from).filter((request) => request.scripted);
      const bodies = sent.map((request) => JSON.stringify(request.body));
      check(
        bodies.some((body) => body.includes(FOLLOW_UP)),
        'no model request of the next turn was seen',
      );
      check(!bodies.some((body) => body.includes(WORD)), 'the next turn still sent the reverted turn to the model');
      await recorder.close();
      return ['revert'];
    },
  },
];
