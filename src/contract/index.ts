export * from './primitives.js';
export * from './resources.js';
export * from './requests.js';
export * from './responses.js';
export * from './queries.js';
export * from './endpoints.js';
export * from './writes/index.js';
