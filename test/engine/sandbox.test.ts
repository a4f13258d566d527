// Chromium's sandbox setting: `off` and `on` are what they say; `auto` asks the machine (never as root, where
// Chromium refuses the sandbox). The container test sees `auto` turn it on for the image's non-root user.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { useSandbox, sandboxPossible, chromeArgs } from '../../engine/index.ts';
import { loadConfig } from '../../engine/kernel/config.ts';

test('off and on are kept; auto follows what the machine allows', () => {
  assert.is(useSandbox('off'), false);
  assert.is(useSandbox('on'), true);
  const root = process.getuid?.() === 0;
  const namespaces =
    spawnSync('unshare', ['--user', '--pid', '--net', '--fork', 'true'], { stdio: 'ignore' }).status === 0;
  assert.is(sandboxPossible(), !root && namespaces);
  assert.is(useSandbox('auto'), !root && namespaces);
});

test('the flags drop --no-sandbox only for a sandboxed launch; a bad setting fails the start', () => {
  assert.ok(chromeArgs(false).includes('--no-sandbox'));
  assert.not.ok(chromeArgs(true).includes('--no-sandbox'));
  assert.is(loadConfig({}).chromiumSandbox, 'auto');
  assert.throws(() => loadConfig({ REFRACT_CHROMIUM_SANDBOX: 'maybe' }), /auto, on or off/);
});

test.run();
