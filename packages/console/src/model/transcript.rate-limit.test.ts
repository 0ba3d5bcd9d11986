// Rate-limit reports are a status of the session, not transcript rows, until one says a limit was hit.
import { describe, expect, it } from 'vitest';
import { eventStream } from '../../test/events.js';
import { Transcript } from './transcript.js';

const windows = (usedPercent: number) => ({ primary: { usedPercent, windowMinutes: 300 }, secondary: null });

describe('Transcript rate limits', () => {
  it('keeps the newest report as status (no row) while no limit is hit', () => {
    const next = eventStream();
    const transcript = new Transcript();
    const t = { turnId: 't1' };
    transcript.apply(next({ type: 'turn.started', input: { text: 'Hi' } }, t));
    const report = (percent: number) =>
      next({ type: 'notice', kind: 'rate_limit', message: 'Codex reported rate limits.', data: windows(percent) }, t);
    transcript.apply(report(12));
    transcript.apply(report(40));
    const view = transcript.view();
    expect(view.rows.filter((row) => row.kind === 'notice')).toEqual([]);
    expect(view.rateLimit).toEqual({ message: 'Codex reported rate limits.', data: windows(40) });
  });

  it('a report of a limit hit is a transcript row', () => {
    const next = eventStream();
    const transcript = new Transcript();
    const t = { turnId: 't1' };
    transcript.apply(next({ type: 'turn.started', input: { text: 'Hi' } }, t));
    transcript.apply(
      next({ type: 'notice', kind: 'rate_limit', message: 'Codex reported rate limits.', data: windows(100) }, t),
    );
    const rows = transcript.view().rows.filter((row) => row.kind === 'notice');
    expect(rows).toMatchObject([{ notice: 'rate_limit', message: 'Codex reported rate limits.' }]);
  });
});
