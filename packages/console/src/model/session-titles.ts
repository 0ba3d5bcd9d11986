// The sidebar's session titles, told apart: sessions with the same title (the same first prompt, or none in the
// same folder) get "(2)", "(3)" in the order they were created, so two rows never read the same.
import type { SessionListing } from '@reins/client';

type Titled = Pick<SessionListing, 'sessionId' | 'title' | 'harness' | 'cwd' | 'createdAt'>;

/** The title a session shows before it has one of its own. */
export function baseTitle(session: Titled): string {
  const folder = session.cwd.split('/').filter(Boolean).at(-1) ?? session.cwd;
  return session.title ?? `${session.harness} in ${folder}`;
}

/** sessionId -> its title, made distinct among `sessions`. */
export function distinctTitles(sessions: readonly Titled[]): Map<string, string> {
  const byTitle = new Map<string, Titled[]>();
  for (const session of sessions) {
    const title = baseTitle(session);
    byTitle.set(title, [...(byTitle.get(title) ?? []), session]);
  }
  const titles = new Map<string, string>();
  for (const [title, same] of byTitle) {
    const ordered = [...same].sort((a, b) => a.createdAt - b.createdAt || a.sessionId.localeCompare(b.sessionId));
    ordered.forEach((session, index) => {
      titles.set(session.sessionId, index === 0 ? title : `${title} (${index + 1})`);
    });
  }
  return titles;
}
