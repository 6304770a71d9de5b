#!/usr/bin/env node
// The repository's entry point for scripts and docs (`node bin/setpoint.js …`): the CLI of packages/setpoint.
await import('../packages/setpoint/bin/setpoint.js');
