import { ValidationError } from '@setpoint/foundation/errors';
import type { CodeFormat } from '../../iac/code-edit.js';
import { type ForgeKind, guessForge, remoteLocation } from '../../iac/forge/forge.js';
import { checkRemote } from '../../iac/git/git-client.js';
import { checkRepositoryPath, formatOfPath, parseSourceAddress } from '../../iac/source-address.js';
import type { OutboundGuard } from '../../security/outbound-guard.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { ProjectSource } from './code-records.js';
import type { DeclaredSource } from './platform-code.js';
import type { SourceRepository } from './source-repository.js';

export interface SourceLinkInput {
  repository: string;
  path: string;
  format?: CodeFormat | undefined;
  branch?: string | null | undefined;
  address?: string | null | undefined;
  target?: string | null | undefined;
  tfvars?: string | null | undefined;
  forge?: ForgeKind | undefined;
  forgeApiUrl?: string | null | undefined;
  /** Write-only: a new token replaces the stored one; null removes it; absent keeps it. */
  token?: string | null | undefined;
  apiWrites?: boolean | undefined;
}

/** A source, with what the platform's API says about the job (it may be deployed from a bundle with no link). */
export interface SourceView {
  source: ProjectSource | null;
  declared: DeclaredSource | null;
  /** A tag that did not parse, said so instead of being ignored. */
  tagProblem: string | null;
}

/** The associated data a project's forge token is sealed with. */
export const sourceTokenScope = (projectId: string) => `project_sources:${projectId}:token`;

/** The account name git sends with a token over HTTPS, as each forge documents it. */
export function tokenUsername(forge: ForgeKind): string {
  return forge === 'gitlab' ? 'oauth2' : 'x-access-token';
}

/**
 * Where each project's configuration lives in code: linked by a user (the forge token sealed with the
 * secrets box, never returned), or read from the job's `setpoint:source` tag. A link wins over a tag.
 */
export function createSourceService(deps: {
  sources: SourceRepository;
  secretBox: SecretBox;
  outbound: Pick<OutboundGuard, 'assertConfigurable'>;
  /** What the project's platform says about the job; null when the platform maps no code. */
  declared(projectId: string): Promise<DeclaredSource | null>;
}) {
  const stored = (projectId: string): Promise<ProjectSource | null> => deps.sources.find(projectId);

  function fromTag(projectId: string, tag: string): ProjectSource {
    const address = parseSourceAddress(tag);
    checkRemote(address.repository);
    const path = checkRepositoryPath(address.path, 'the setpoint:source path');
    const guessed = guessForge(address.repository);
    return {
      projectId,
      format: formatOfPath(path),
      repository: address.repository,
      path,
      branch: address.branch,
      address: null,
      target: null,
      tfvars: null,
      forge: guessed.kind,
      forgeApiUrl: guessed.apiUrl,
      tokenSet: false,
      apiWrites: false,
      origin: 'tag',
      createdBy: 'tag',
      createdAt: 0,
      updatedAt: 0,
    };
  }

  async function view(projectId: string): Promise<SourceView> {
    const [linked, declared] = await Promise.all([
      stored(projectId),
      // an unreachable workspace must not hide a link: the platform's word is then unknown
      deps.declared(projectId).catch(() => null),
    ]);
    if (linked || !declared?.sourceTag) return { source: linked, declared, tagProblem: null };
    try {
      return { source: fromTag(projectId, declared.sourceTag), declared, tagProblem: null };
    } catch (error) {
      return {
        source: null,
        declared,
        tagProblem: `setpoint:source "${declared.sourceTag}": ${(error as Error).message}`,
      };
    }
  }

  return {
    stored,
    view,

    /** The source proposals go to, or null when the project's code is not known. */
    async effective(projectId: string): Promise<ProjectSource | null> {
      return (await view(projectId)).source;
    },

    async link(projectId: string, input: SourceLinkInput, actor: string): Promise<ProjectSource> {
      const repository = input.repository.trim();
      checkRemote(repository);
      if (/^https?:\/\//i.test(repository)) await deps.outbound.assertConfigurable(repository, 'repository');
      const path = checkRepositoryPath(input.path, 'path');
      const format = input.format ?? formatOfPath(path);
      const guessed = guessForge(repository);
      const forge = input.forge ?? guessed.kind;
      const forgeApiUrl =
        input.forgeApiUrl ??
        (forge === guessed.kind ? guessed.apiUrl : null) ??
        (forge === 'gitlab' && remoteLocation(repository)
          ? `https://${remoteLocation(repository)?.host}/api/v4`
          : null);
      if (forge !== 'none' && !forgeApiUrl)
        throw new ValidationError(
          'FORGE_API_URL_REQUIRED',
          `give the ${forge} API URL for ${repository} (e.g. https://github.example.com/api/v3)`,
        );
      if (forge !== 'none' && !remoteLocation(repository))
        throw new ValidationError(
          'FORGE_NEEDS_URL',
          `a ${forge} proposal needs the repository's URL (https or ssh), not a local path`,
        );
      if (forgeApiUrl) await deps.outbound.assertConfigurable(forgeApiUrl, 'forge_api_url');
      const tfvars = input.tfvars ? checkRepositoryPath(input.tfvars, 'tfvars') : null;
      if (tfvars && format !== 'terraform')
        throw new ValidationError('TFVARS_NOT_TERRAFORM', 'tfvars applies to Terraform sources only');
      if (input.target && format !== 'bundle')
        throw new ValidationError('TARGET_NOT_BUNDLE', 'target applies to bundle sources only');
      const previous = await deps.sources.find(projectId);
      const token =
        input.token === undefined
          ? await deps.sources.sealedToken(projectId)
          : input.token === null || input.token === ''
            ? null
            : deps.secretBox.encrypt(input.token, sourceTokenScope(projectId));
      const now = Date.now();
      await deps.sources.save(
        {
          projectId,
          format,
          repository,
          path,
          branch: input.branch?.trim() || null,
          address: input.address?.trim() || null,
          target: input.target?.trim() || null,
          tfvars,
          forge,
          forgeApiUrl,
          tokenCiphertext: token,
          apiWrites: Boolean(input.apiWrites),
          createdBy: actor,
          createdAt: previous?.createdAt ?? now,
          updatedAt: now,
        },
        {
          entity: 'project',
          entityId: projectId,
          action: 'link-source',
          actor,
          detail: {
            format,
            repository,
            path,
            forge,
            token: token ? 'set' : 'none',
            api_writes: Boolean(input.apiWrites),
          },
        },
      );
      return (await stored(projectId)) as ProjectSource;
    },

    async unlink(projectId: string, actor: string): Promise<boolean> {
      return deps.sources.remove(
        projectId,
        { entity: 'project', entityId: projectId, action: 'unlink-source', actor, detail: {} },
        Date.now(),
      );
    },

    /** The decrypted forge token, for git and the forge's API only. */
    async token(projectId: string): Promise<string | null> {
      const sealed = await deps.sources.sealedToken(projectId);
      return sealed ? deps.secretBox.decrypt(sealed, sourceTokenScope(projectId)) : null;
    },
  };
}

export type SourceService = ReturnType<typeof createSourceService>;
