/**
 * The emulated workspace's one user: the owner of every token the emulator accepts, the creator and run-as
 * user of its jobs, clusters and runs, and who SCIM `Me` answers for.
 */
export const workspaceUser = {
  id: '4242424242424242',
  userName: 'setpoint-emulator@example.com',
  displayName: 'Setpoint Emulator',
} as const;
