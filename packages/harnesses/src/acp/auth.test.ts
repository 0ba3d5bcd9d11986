// The sign-in methods an ACP agent lists, read as the agents tested send them: agent methods
// (Gemini CLI 0.61.0), the protocol's `type: "terminal"` (claude-agent-acp 0.23.1), Qwen Code
// 0.24.4's `_meta.type: "terminal"`, Copilot CLI 1.0.102's `_meta["terminal-auth"]`, and a type
// Reins cannot run.
import { expect, it } from 'vitest';
import { offeredMethods } from './auth.js';

const agent = { command: '/usr/bin/node', args: ['/opt/agent/index.js'] };

it('reads agent methods as they are and gives terminal methods their command line', () => {
  const methods = offeredMethods(
    [
      { id: 'oauth-personal', name: 'Log in with Google', description: 'Log in with your Google account' },
      { id: 'claude-login', name: 'Log in with Claude', type: 'terminal', args: ['--cli'] },
      {
        id: 'openai',
        name: 'Use OpenAI API key',
        _meta: { type: 'terminal', args: ['--auth-type=openai'], env: { MODE: 'two words' } },
      },
      {
        id: 'copilot-login',
        name: 'Log in with Copilot CLI',
        _meta: { 'terminal-auth': { command: '/opt/copilot', args: ['login'], label: 'Copilot Login' } },
      },
      { id: 'key', name: 'Key in a variable', type: 'env_var', varName: 'SOME_KEY' },
      { name: 'no id' },
      'not a method',
    ],
    agent,
  );
  expect(methods).toEqual([
    { id: 'oauth-personal', name: 'Log in with Google', description: 'Log in with your Google account' },
    { id: 'claude-login', name: 'Log in with Claude', terminal: '/usr/bin/node /opt/agent/index.js --cli' },
    {
      id: 'openai',
      name: 'Use OpenAI API key',
      terminal: "MODE='two words' /usr/bin/node /opt/agent/index.js --auth-type=openai",
    },
    { id: 'copilot-login', name: 'Log in with Copilot CLI', terminal: '/opt/copilot login' },
    { id: 'key', name: 'Key in a variable', unknownType: 'env_var' },
  ]);
});

it('quotes what a shell would split or expand', () => {
  const [method] = offeredMethods([{ id: 't', name: 'T', type: 'terminal', args: ["it's", '$HOME', 'a b'] }], {
    command: '/opt/my agent',
    args: [],
  });
  expect(method?.terminal).toBe(`'/opt/my agent' 'it'\\''s' '$HOME' 'a b'`);
});

it('no list is no methods', () => {
  expect(offeredMethods(undefined, agent)).toEqual([]);
  expect(offeredMethods({ id: 'x' }, agent)).toEqual([]);
});
