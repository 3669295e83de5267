// `vscode:prepublish`, which vsce runs before it packages: type-check, then bundle
// dist/extension.js (minified). scripts/package-all.sh runs it once and sets
// TORCH_LOGS_PREPUBLISHED=1 for its seven `vsce package` calls.
import { execSync } from 'child_process';

if (!process.env.TORCH_LOGS_PREPUBLISHED) {
  execSync('npm run typecheck', { stdio: 'inherit' });
  execSync('node esbuild.mjs --production', { stdio: 'inherit' });
}
