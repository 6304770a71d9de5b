export * from './s3-client.js';
