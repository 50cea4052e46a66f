/** The Node.js line the service is built and tested on: 24 LTS (Node 20 reached its end of life on 2026-04-30). */
export const SUPPORTED_NODE_MAJOR = 24;

/** Why this runtime cannot run the service, or undefined when it can. */
export function unsupportedRuntimeReason(version: string = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major >= SUPPORTED_NODE_MAJOR) return undefined;
  return (
    `Unsupported runtime: this service needs Node.js ${SUPPORTED_NODE_MAJOR} or later; this is Node.js ${version}. ` +
    `Run it through the npm scripts (npm start, npm run start:api, npm run cli), which use the Node.js ${SUPPORTED_NODE_MAJOR} ` +
    `that npm ci installs, or install Node.js ${SUPPORTED_NODE_MAJOR} LTS.`
  );
}
