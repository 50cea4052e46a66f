import { unsupportedRuntimeReason } from './supported-runtime';

// Imported first by every entry point, so that the warning is the first line an operator sees.
// It warns rather than stops: a process already started by hand on an older Node still serves.
const reason = unsupportedRuntimeReason();
if (reason !== undefined) process.stderr.write(`${reason}\n`);
