import type { Kysely } from 'kysely';
import type { Database } from '../store/database-schema.js';
import { createAlertRepository } from './alerts/alert-repository.js';
import { createAppliedChangeRepository } from './apply/applied-change-repository.js';
import { createApplyIntentRepository } from './apply/apply-intent-repository.js';
import { createApprovalRepository } from './apply/approval-repository.js';
import { createAuditRepository } from './audit/audit-repository.js';
import { createApiKeyRepository } from './auth/api-key-repository.js';
import { createUserRepository } from './auth/user-repository.js';
import { createProposalRepository } from './code/proposal-repository.js';
import { createSourceRepository } from './code/source-repository.js';
import { createParkedJobRepository } from './jobs/parked-job-repository.js';
import { createMaintenancePassRepository } from './maintenance/maintenance-pass-repository.js';
import { createOrganizationSettingsRepository } from './organization/organization-settings-repository.js';
import { createProjectRepository } from './projects/project-repository.js';
import { createLearningSummaryRepository } from './recommendations/learning-summary-repository.js';
import { createRecommendationRepository } from './recommendations/recommendation-repository.js';
import { createRunRepository } from './runs/run-repository.js';
import { createRunRetentionRepository } from './runs/run-retention-repository.js';
import { createWorkspaceRepository } from './workspaces/workspace-repository.js';

/** Every core repository over one database: the only code that builds queries on the core's tables. */
export function createRepositories(db: Kysely<Database>) {
  return {
    alerts: createAlertRepository(db),
    appliedChanges: createAppliedChangeRepository(db),
    applyIntents: createApplyIntentRepository(db),
    approvals: createApprovalRepository(db),
    audit: createAuditRepository(db),
    apiKeys: createApiKeyRepository(db),
    users: createUserRepository(db),
    learningSummaries: createLearningSummaryRepository(db),
    parkedJobs: createParkedJobRepository(db),
    maintenancePasses: createMaintenancePassRepository(db),
    organizationSettings: createOrganizationSettingsRepository(db),
    projects: createProjectRepository(db),
    proposals: createProposalRepository(db),
    sources: createSourceRepository(db),
    recommendations: createRecommendationRepository(db),
    runs: createRunRepository(db),
    runRetention: createRunRetentionRepository(db),
    workspaces: createWorkspaceRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
