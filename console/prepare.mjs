// The root's `prepare` (so `npm ci` and `npm install`): builds the console into console/dist. A
// production install (`npm ci --omit=dev`) has no Vite; it keeps the console/dist built before.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const dist = new URL('./dist/index.html', import.meta.url);
try {
  createRequire(import.meta.url).resolve('vite/package.json');
} catch {
  console.log(
    existsSync(dist)
      ? 'console: Vite is not installed; keeping the console already built in console/dist'
      : 'console: Vite is not installed, so the console is not built (/console will say so); `npm ci` with dev dependencies builds it',
  );
  process.exit(0);
}
execFileSync('npm', ['run', 'build', '-w', 'console'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' });
