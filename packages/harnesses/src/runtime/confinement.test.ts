// Reins' confinement for posture workspace: the bubblewrap argv and the writable folders (pure).
import { describe, expect, it } from 'vitest';
import { confinedArgv, envOrHome, tempFolder, workspaceConfinement } from './confinement.js';

describe('confinedArgv', () => {
  it('binds / read-only, each writable folder read-write over it, parents first, then runs the command', () => {
    const { command, args } = confinedArgv(
      { bwrap: '/usr/bin/bwrap', writable: ['/home/u/work', '/home/u/work/.state/deep', '/tmp', '/home/u/work'] },
      '/usr/bin/node',
      ['agent.js', '--acp'],
      '/home/u/work',
    );
    expect(command).toBe('/usr/bin/bwrap');
    expect(args).toEqual([
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--bind',
      '/tmp',
      '/tmp',
      '--bind',
      '/home/u/work',
      '/home/u/work',
      '--bind',
      '/home/u/work/.state/deep',
      '/home/u/work/.state/deep',
      '--chdir',
      '/home/u/work',
      '--die-with-parent',
      '--',
      '/usr/bin/node',
      'agent.js',
      '--acp',
    ]);
  });

  it('leaves the network alone (the harness must reach its model)', () => {
    const { args } = confinedArgv({ bwrap: 'bwrap', writable: ['/w'] }, 'x', [], '/w');
    expect(args.some((arg) => arg.startsWith('--unshare'))).toBe(false);
  });
});

describe('writable folders', () => {
  it('takes an env folder when set, else the fallback under HOME, and none without a home', () => {
    expect(envOrHome({ HOME: '/h', XDG_DATA_HOME: '/d' }, 'XDG_DATA_HOME', '.local/share', 'opencode')).toEqual([
      '/d/opencode',
    ]);
    expect(envOrHome({ HOME: '/h' }, 'XDG_DATA_HOME', '.local/share', 'opencode')).toEqual([
      '/h/.local/share/opencode',
    ]);
    expect(envOrHome({ HOME: '/h', PI: 'relative' }, 'PI', '.pi/agent')).toEqual(['/h/.pi/agent']);
    expect(envOrHome({}, 'PI', '.pi/agent')).toEqual([]);
  });

  it('the temp folder is $TMPDIR when set, else /tmp', () => {
    expect(tempFolder({ TMPDIR: '/t/x' })).toBe('/t/x');
    expect(tempFolder({})).toBe('/tmp');
  });

  it.runIf(process.platform === 'linux')(
    'a workspace confinement holds the cwd first, state and temp, once each',
    () => {
      const confinement = workspaceConfinement({
        harness: 'pi',
        displayName: 'Pi',
        cwd: '/w/project/',
        env: { HOME: '/h', TMPDIR: '/t', PATH: process.env.PATH },
        stateFolders: (env) => [`${env.HOME}/.pi/agent`, '/t'],
      });
      expect(confinement.writable).toEqual(['/w/project', '/h/.pi/agent', '/t']);
    },
  );

  it.runIf(process.platform === 'linux')('without bwrap the posture is refused, naming apt install bubblewrap', () => {
    expect(() =>
      workspaceConfinement({ harness: 'pi', displayName: 'Pi', cwd: '/w', env: { PATH: '/nowhere' } }),
    ).toThrow(
      expect.objectContaining({
        code: 'unsupported_capability',
        message: expect.stringContaining('apt install bubblewrap'),
        data: { field: 'posture', missing: ['bwrap'] },
      }),
    );
  });
});
