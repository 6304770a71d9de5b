/** The exit codes `setpoint` documents; each error kind maps to one in `src/errors/error-kinds.ts`. */
export const exitCodeHelp: [code: number, meaning: string][] = [
  [0, 'success'],
  [1, 'unexpected error (run again with --debug for the stack trace)'],
  [2, 'bad input: unknown command or option, invalid value, rejected by the server (400)'],
  [3, 'not found: project, run, recommendation or workspace (404)'],
  [4, 'conflict: e.g. no processed run to base a recommendation on (409)'],
  [5, 'not authorized: missing, wrong or revoked API key, or not allowed (401/403)'],
  [6, 'rate limited (429); retry later'],
  [7, 'the server or Databricks could not be reached or failed'],
  [8, 'configuration: no API key, bad ~/.setpoint/config or invalid settings'],
];

export const rootHelpText = `
Examples:
  setpoint serve                                  # API, dashboard and pipeline on :8080
  setpoint keys create --name laptop --json       # an API key for the commands below
  setpoint configure --url http://localhost:8080 --api-key-id spk_… --api-key-secret sps_…
  setpoint projects list
  setpoint runs submit prj_… ./eventlog.zip --cluster-report report.json
  setpoint recommendations generate prj_… --wait
  setpoint analyze ./eventlog                     # local: no server needed
  setpoint completion bash >> ~/.bashrc           # tab completion

Environment:
  SETPOINT_URL, SETPOINT_API_KEY_ID, SETPOINT_API_KEY_SECRET  override the configured profile
  SETPOINT_PROFILE   profile to use (default "default"); SETPOINT_HOME  config folder (~/.setpoint)
  NO_COLOR           plain output even on a terminal

Exit codes:
${exitCodeHelp.map(([code, meaning]) => `  ${code}  ${meaning}`).join('\n')}

Every command has --help; errors are one line on stderr (stack traces with --debug).`;

/** An "Examples:" section for `.addHelpText('after', …)`. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}
