export * from './app-error.js';
export * from './error-kinds.js';
export * from './upstream-answer.js';
