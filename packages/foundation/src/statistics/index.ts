export * from './statistics.js';
