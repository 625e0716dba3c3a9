// The npm registry reachable here lacks some platform builds of optional native packages (e.g.
// @rollup/rollup-darwin-arm64 at the version rollup pins). `npm install` then leaves them out of
// package-lock.json and `npm ci` refuses the lock as out of sync. This adds the missing optional
// entries with their os/cpu/libc constraints, exactly as npm writes them against the full
// registry, so `npm ci` skips them on this platform. Run after `npm install` changes the lock.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const lockFile = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
const packages = lock.packages;
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (packages[`node_modules/${name}`] || packages[`${path}/node_modules/${name}`]) continue;
    const platform = platformOf(name);
    packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added++;
  }
}

// Sort entries as npm does, so the diff stays small.
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} optional platform entries`);

// The os/cpu/libc of a platform package, from the newest version the registry has.
function platformOf(name) {
  try {
    const out = execFileSync('npm', ['view', name, 'os', 'cpu', 'libc', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const meta = JSON.parse(out || '{}');
    const picked = {};
    for (const key of ['os', 'cpu', 'libc']) if (meta[key]) picked[key] = [].concat(meta[key]);
    if (picked.os || picked.cpu) return picked;
  } catch {
    // fall through to the name
  }
  throw new Error(`cannot tell the platform of ${name}: add its entry by hand`);
}
