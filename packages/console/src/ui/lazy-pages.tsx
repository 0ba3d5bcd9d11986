// The pages the first screen of a session does not need (doctor, new session, conversations on
// disk, the raw-frames panel), each loaded as a chunk of its own when first shown, so opening a
// session evaluates less script before its transcript (bench figure 10). Once the console is idle
// they are fetched ahead, so a click on one rarely waits.
import { lazy } from 'react';

const load = {
  doctor: () => import('./DoctorPage.js'),
  newSession: () => import('./NewSessionPage.js'),
  conversations: () => import('./ConversationsPage.js'),
  debug: () => import('./DebugPanel.js'),
};

export const DoctorPage = lazy(() => load.doctor().then((module) => ({ default: module.DoctorPage })));
export const NewSessionPage = lazy(() => load.newSession().then((module) => ({ default: module.NewSessionPage })));
export const ConversationsPage = lazy(() =>
  load.conversations().then((module) => ({ default: module.ConversationsPage })),
);
export const DebugPanel = lazy(() => load.debug().then((module) => ({ default: module.DebugPanel })));

/** Fetches the other pages' chunks when the browser is idle (a failed fetch retries when shown). */
export function preloadPages(): void {
  const fetchAll = () => {
    for (const chunk of Object.values(load)) void chunk().catch(() => {});
  };
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(fetchAll, { timeout: 5_000 });
  else setTimeout(fetchAll, 2_000);
}
