import { describe, expect, it } from 'vitest';
import { checkRepositoryPath, formatOfPath, parseSourceAddress } from './source-address.js';

describe('parseSourceAddress', () => {
  it('splits repository and path at the last // that is not a URL scheme, with an optional ref', () => {
    expect(parseSourceAddress('https://github.com/acme/infra.git//jobs/orders.tf')).toEqual({
      repository: 'https://github.com/acme/infra.git',
      path: 'jobs/orders.tf',
      branch: null,
    });
    expect(parseSourceAddress('git@gitlab.com:data/infra.git//bundle/databricks.yml?ref=release')).toEqual({
      repository: 'git@gitlab.com:data/infra.git',
      path: 'bundle/databricks.yml',
      branch: 'release',
    });
    expect(parseSourceAddress('/srv/git/infra.git//dags/orders.py').repository).toBe('/srv/git/infra.git');
    expect(() => parseSourceAddress('https://github.com/acme/infra.git')).toThrow(
      'is not <repository>//<path>',
    );
  });

  it('knows the format from the file name and keeps paths inside the repository', () => {
    expect(formatOfPath('a/main.tf')).toBe('terraform');
    expect(formatOfPath('databricks.yml')).toBe('bundle');
    expect(formatOfPath('dags/x.py')).toBe('airflow');
    expect(() => formatOfPath('main.tf.json')).toThrow('Setpoint edits Terraform (.tf)');
    expect(checkRepositoryPath('./infra/jobs.tf', 'path')).toBe('infra/jobs.tf');
    expect(() => checkRepositoryPath('../etc/passwd', 'path')).toThrow(
      'must be a path inside the repository',
    );
    expect(() => checkRepositoryPath('/etc/passwd', 'path')).toThrow('must be a path inside the repository');
  });
});
