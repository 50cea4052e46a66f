import { unsupportedRuntimeReason } from './supported-runtime';

// Imported first by every entry point: an old runtime stops with what it needs, before any module
// that might fail on it in a less readable way is loaded.
const reason = unsupportedRuntimeReason();
if (reason !== undefined) {
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}
