// Which conversation each launch opens (conversation.ts): a new one under Reins' id, a resumed one under
// its own, a fork as resume + forkSession under a new id until its first turn is written, then resumed
// under the fork's id; an unwritten conversation gets a fresh id on relaunch; a rewind forks the
// conversation at a message (or starts it over) under a fresh id.
import { describe, expect, test } from 'vitest';
import { ClaudeConversation } from './conversation.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('ClaudeConversation', () => {
  test('new: --session-id with an id Reins picks; once written, relaunches resume it', () => {
    const conversation = new ClaudeConversation(undefined);
    expect(conversation.id).toMatch(UUID);
    expect(conversation.launch()).toEqual({ sessionId: conversation.id });
    const before = conversation.id;
    expect(conversation.freshIdIfUnwritten()).toBe(true);
    expect(conversation.id).not.toBe(before);
    conversation.turnWritten();
    expect(conversation.freshIdIfUnwritten()).toBe(false);
    expect(conversation.launch()).toEqual({ resume: conversation.id });
  });

  test('resume: the conversation keeps its own id and is written already', () => {
    const conversation = new ClaudeConversation({ nativeSessionId: 'src' });
    expect(conversation.id).toBe('src');
    expect(conversation.isWritten).toBe(true);
    expect(conversation.launch()).toEqual({ resume: 'src' });
    expect(conversation.freshIdIfUnwritten()).toBe(false);
  });

  test('fork: resume the source with forkSession under a new id; after its first turn, resume the fork', () => {
    const conversation = new ClaudeConversation({ nativeSessionId: 'src', fork: true });
    expect(conversation.id).toMatch(UUID);
    expect(conversation.id).not.toBe('src');
    expect(conversation.isWritten).toBe(false);
    expect(conversation.launch()).toEqual({ resume: 'src', forkSession: true, sessionId: conversation.id });
    // A relaunch before anything was said forks again, under a fresh id.
    const first = conversation.id;
    expect(conversation.freshIdIfUnwritten()).toBe(true);
    expect(conversation.launch()).toEqual({ resume: 'src', forkSession: true, sessionId: conversation.id });
    expect(conversation.id).not.toBe(first);
    conversation.turnWritten();
    expect(conversation.launch()).toEqual({ resume: conversation.id });
  });

  test('an id the CLI names itself is adopted', () => {
    const conversation = new ClaudeConversation({ nativeSessionId: 'src', fork: true });
    conversation.adopt('cli-id');
    conversation.turnWritten();
    expect(conversation.launch()).toEqual({ resume: 'cli-id' });
  });

  test('rewind to a message: a fork of the written conversation kept up to it, until the fork is written', () => {
    const conversation = new ClaudeConversation({ nativeSessionId: 'src' });
    expect(conversation.rewind({ kind: 'message', uuid: 'm1' })).toBe(true);
    const fork = conversation.id;
    expect(fork).toMatch(UUID);
    expect(conversation.launch()).toEqual({ resume: 'src', forkSession: true, sessionId: fork, resumeSessionAt: 'm1' });
    // Rewinding again before anything was said: the same source, the new point.
    expect(conversation.rewind({ kind: 'message', uuid: 'm0' })).toBe(true);
    expect(conversation.launch()).toMatchObject({ resume: 'src', resumeSessionAt: 'm0' });
    conversation.turnWritten();
    expect(conversation.launch()).toEqual({ resume: conversation.id });
    // Once the fork is written, the next rewind forks the fork.
    const written = conversation.id;
    conversation.rewind({ kind: 'message', uuid: 'm2' });
    expect(conversation.launch()).toMatchObject({ resume: written, resumeSessionAt: 'm2' });
  });

  test('rewind to the start: a new conversation, or the spec fork of its source again', () => {
    const fresh = new ClaudeConversation(undefined);
    fresh.turnWritten();
    expect(fresh.rewind({ kind: 'start' })).toBe(true);
    expect(fresh.launch()).toEqual({ sessionId: fresh.id });
    const forked = new ClaudeConversation({ nativeSessionId: 'src', fork: true });
    forked.turnWritten();
    forked.rewind({ kind: 'start' });
    expect(forked.launch()).toEqual({ resume: 'src', forkSession: true, sessionId: forked.id });
  });

  test('rewind to a message with no transcript to fork from is refused', () => {
    const conversation = new ClaudeConversation(undefined);
    const id = conversation.id;
    expect(conversation.rewind({ kind: 'message', uuid: 'm1' })).toBe(false);
    expect(conversation.id).toBe(id);
  });
});
