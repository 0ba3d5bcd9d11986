// Mounts the console's React tree: its own chunk, so that main.tsx can open the daemon's socket
// before React and the pages are evaluated. Without a token the page only says how to get one.
import { createRoot } from 'react-dom/client';
import type { ConsoleState } from '../app/console-state.js';
import { App, NoToken } from './App.js';
import { preloadPages } from './lazy-pages.js';

export function mount(element: HTMLElement, state: ConsoleState | undefined): void {
  const root = createRoot(element);
  root.render(state ? <App state={state} /> : <NoToken />);
  if (state) preloadPages();
}
