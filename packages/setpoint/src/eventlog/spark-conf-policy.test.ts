import { describe, expect, it } from 'vitest';
import { isKeptSparkConfKey, isSecretKey, isSecretValue } from './spark-conf-policy.js';

describe('Spark conf policy', () => {
  it('keeps the sizing keys and the platform families only', () => {
    for (const key of [
      'spark.master',
      'spark.executor.memory',
      'spark.databricks.clusterUsageTags.clusterWorkers',
      'spark.emr.default.executor.cores',
      'spark.driver.host',
    ]) {
      expect(isKeptSparkConfKey(key), key).toBe(true);
    }
    for (const key of [
      'spark.hadoop.fs.s3a.secret.key',
      'spark.executor.extraJavaOptions',
      'spark.driver.port',
      'k1',
    ]) {
      expect(isKeptSparkConfKey(key), key).toBe(false);
    }
  });

  it('finds secret-looking keys by substring or by whole word', () => {
    for (const key of [
      'spark.ssl.keyStorePassword',
      'fs.s3a.access.key',
      'spark.databricks.clusterUsageTags.sasKey',
      'spark.emr.clientSecret',
      'x.AUTH_TOKEN',
      'spark.authenticate.secret',
      'a.credentials.file',
      'spark.emr.privateKey',
      'b.api-key',
      'c.auth',
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of [
      'spark.executor.memory',
      'spark.databricks.clusterUsageTags.clusterNodeType',
      'spark.monkey.business',
      'spark.keyword',
    ]) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });

  it('finds credentials in values whatever the key', () => {
    for (const value of [
      'https://user:pw@host/path',
      'dapi0123456789abcdef0123456789abcdef',
      'AKIAABCDEFGHIJKLMNOP',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig',
      '-----BEGIN RSA PRIVATE KEY-----',
      'https://acct.blob.core.windows.net/c?sv=2020&sig=abc%3D',
      'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=xyz==;',
    ]) {
      expect(isSecretValue(value), value).toBe(true);
    }
    for (const value of ['8g', 'yarn', 's3://bucket/logs', 'https://host/path', 'i3.xlarge']) {
      expect(isSecretValue(value), value).toBe(false);
    }
  });
});
