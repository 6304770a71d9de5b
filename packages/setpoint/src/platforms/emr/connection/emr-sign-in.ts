import { AppError } from '@setpoint/foundation/errors';
import type { ConnectionCheck } from '../../../service/connections/platform-connector.js';
import type { EmrClient } from '../api/emr-client.js';
import type { EmrConnection } from '../api/emr-connection.js';

/** AWS's answers to credentials it does not accept (as opposed to a permission the identity lacks). */
const refusedCredentials = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'MissingAuthenticationTokenException',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'CredentialsProviderError',
]);

/** The address a connection's requests go to: its own endpoint, or AWS's for its region. */
export function emrAddressOf(connection: Pick<EmrConnection, 'endpoint' | 'region'>): string {
  return connection.endpoint ?? `https://elasticmapreduce.${connection.region}.amazonaws.com`;
}

/** What a sign-in sends, in the words of its check's lines. */
export const emrSignInTarget = (connection: Pick<EmrConnection, 'endpoint' | 'region'>) =>
  `EMR ListClusters at ${emrAddressOf(connection)} once`;

/**
 * Signs in with one ListClusters page, sent once by a client limited to the sign-in's time: an account
 * that does not answer is unreachable, credentials AWS refuses end the check with that one reason, and a
 * permission the identity lacks is left to the access check's lines.
 */
export async function signInToEmr(
  client: Pick<EmrClient, 'listClusters' | 'connection'>,
  limitMs: number,
): Promise<ConnectionCheck> {
  const tried = `tried ${emrSignInTarget(client.connection)}, ${limitMs / 1000} s limit`;
  try {
    for await (const _cluster of client.listClusters({ createdAfter: new Date(Date.now() - 86_400_000) }))
      break;
    return {
      ok: true,
      reachable: true,
      lines: [{ check: 'authenticate', ok: true, detail: `signed in to ${client.connection.region}` }],
    };
  } catch (error) {
    const awsError = error instanceof AppError ? String(error.details?.awsError ?? '') : '';
    const message = error instanceof Error ? error.message : String(error);
    if (refusedCredentials.has(awsError))
      return {
        ok: false,
        reachable: true,
        lines: [
          {
            check: 'authenticate',
            ok: false,
            detail: `AWS refused the credentials: ${message}`,
            fix: 'the access keys are wrong, expired or deactivated, or the role cannot be assumed: enter them again',
          },
        ],
      };
    if (error instanceof AppError && error.code === 'EMR_ACCESS_DENIED')
      return {
        ok: true,
        reachable: true,
        lines: [
          {
            check: 'authenticate',
            ok: true,
            detail: `signed in; ListClusters was denied (${message}): the access check lists what is missing`,
          },
        ],
      };
    const answered = error instanceof AppError && /HTTP \d{3}/.test(message);
    return {
      ok: false,
      reachable: answered,
      lines: [
        {
          check: answered ? 'authenticate' : 'reach account',
          ok: false,
          detail: answered ? `${message} (${tried})` : `unreachable: ${message} (${tried})`,
          fix: answered
            ? 'check the endpoint and region: the address answered, but not as Amazon EMR does'
            : 'check the endpoint and region, and that the Setpoint server can reach them (DNS, firewall, proxy, VPC endpoint)',
        },
      ],
    };
  }
}
