// The template harness's public names (named exports only).
export { createTemplateHarness } from './adapter.js';
export { TEMPLATE_IMPLEMENTED } from './implemented.js';
