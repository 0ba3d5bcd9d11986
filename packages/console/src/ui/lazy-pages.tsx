// The pages the first screen of a session does not need (doctor, new session, conversations on
// disk, the raw-frames panel), each a chunk of its own, so opening a session evaluates less script
// before its transcript (bench figure 10). Once the console is idle they are fetched ahead; a page
// whose chunk is in renders at once, in the same commit as the route change (as when it was in the
// main chunk: the focus moves to it then), and one that is not yet suspends (App's Suspense).
import { type ComponentType, use } from 'react';
import type { ConversationsPage as ConversationsPageType } from './ConversationsPage.js';
import type { DebugPanel as DebugPanelType } from './DebugPanel.js';
import type { DoctorPage as DoctorPageType } from './DoctorPage.js';
import type { NewSessionPage as NewSessionPageType } from './NewSessionPage.js';

interface LazyPage<P> {
  Page: (props: P) => React.ReactNode;
  fetch(): Promise<void>;
}

function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): LazyPage<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<void> | undefined;
  const fetch = (): Promise<void> =>
    (pending ??= load().then(
      (component) => {
        loaded = component;
      },
      (error: unknown) => {
        pending = undefined; // the next render tries again
        throw error;
      },
    ));
  // biome-ignore lint/correctness/noComponentHookFactories: called once per page, at module level
  function Page(props: P): React.ReactNode {
    if (!loaded) use(fetch());
    const Loaded = loaded as ComponentType<P>;
    return <Loaded {...props} />;
  }
  return { Page, fetch };
}

const doctor = lazyPage<Parameters<typeof DoctorPageType>[0]>(() =>
  import('./DoctorPage.js').then((module) => module.DoctorPage),
);
const newSession = lazyPage<Parameters<typeof NewSessionPageType>[0]>(() =>
  import('./NewSessionPage.js').then((module) => module.NewSessionPage),
);
const conversations = lazyPage<Parameters<typeof ConversationsPageType>[0]>(() =>
  import('./ConversationsPage.js').then((module) => module.ConversationsPage),
);
const debug = lazyPage<Parameters<typeof DebugPanelType>[0]>(() =>
  import('./DebugPanel.js').then((module) => module.DebugPanel),
);

export const DoctorPage = doctor.Page;
export const NewSessionPage = newSession.Page;
export const ConversationsPage = conversations.Page;
export const DebugPanel = debug.Page;

/** Fetches the other pages' chunks when the browser is idle (a failed fetch retries when shown). */
export function preloadPages(): void {
  const fetchAll = () => {
    for (const page of [doctor, newSession, conversations, debug]) void page.fetch().catch(() => {});
  };
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(fetchAll, { timeout: 5_000 });
  else setTimeout(fetchAll, 2_000);
}
