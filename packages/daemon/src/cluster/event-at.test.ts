// When a stored event happened, read by the store (a held session's updatedAt) and the mirror alike.
import { describe, expect, it } from 'vitest';
import { eventAtOf } from './event-stream.js';

describe('eventAtOf', () => {
  it("reads a stored event's numeric at, and nothing from JSON that does not hold one", () => {
    expect(eventAtOf('{"type":"turn.started","at":1733140000000}')).toBe(1733140000000);
    expect(eventAtOf('{"type":"turn.started","at":"yesterday"}')).toBeUndefined();
    expect(eventAtOf('{"type":"turn.started"}')).toBeUndefined();
    expect(eventAtOf('{"truncated')).toBeUndefined();
  });
});
