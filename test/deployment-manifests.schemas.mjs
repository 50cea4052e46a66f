// Validates Kubernetes objects against the API's schemas from kubernetes-models, for Jest, whose
// CommonJS cannot load that ES-module-only package: `node deployment-manifests.schemas.mjs`
// reads a JSON array of objects on standard input and prints, for each, its schema error or null.
import process from 'node:process';
import { text } from 'node:stream/consumers';

/** The model of an object's apiVersion and kind (`apps/v1` + `Deployment`), or why there is none. */
async function modelOf(object) {
  try {
    const module = await import(`kubernetes-models/${object.apiVersion}/${object.kind}`);
    return { model: module[object.kind] };
  } catch {
    return { error: `no schema for apiVersion ${object.apiVersion} kind ${object.kind}` };
  }
}

const objects = JSON.parse(await text(process.stdin));
const errors = [];
for (const object of objects) {
  const { model, error } = await modelOf(object);
  if (!model) {
    errors.push(error);
    continue;
  }
  try {
    new model(object).validate();
    errors.push(null);
  } catch (invalid) {
    errors.push(invalid.message);
  }
}
process.stdout.write(`${JSON.stringify(errors)}\n`);
