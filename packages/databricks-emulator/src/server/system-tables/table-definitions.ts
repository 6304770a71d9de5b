/**
 * The system tables the emulator serves, with Databricks' documented column names and types
 * (docs.databricks.com/admin/system-tables: billing, pricing, compute, jobs). Struct and map columns
 * are stored as JSON text; `type` is what the Statement Execution API reports as `type_text`.
 */
export interface ColumnDefinition {
  name: string;
  type: string;
}

export interface TableDefinition {
  name: string;
  columns: ColumnDefinition[];
}

const column = (name: string, type: string): ColumnDefinition => ({ name, type });

export const usageTable: TableDefinition = {
  name: 'system.billing.usage',
  columns: [
    column('record_id', 'STRING'),
    column('account_id', 'STRING'),
    column('workspace_id', 'STRING'),
    column('sku_name', 'STRING'),
    column('cloud', 'STRING'),
    column('usage_start_time', 'TIMESTAMP'),
    column('usage_end_time', 'TIMESTAMP'),
    column('usage_date', 'DATE'),
    column('custom_tags', 'MAP<STRING, STRING>'),
    column('usage_unit', 'STRING'),
    column('usage_quantity', 'DECIMAL(38,18)'),
    column(
      'usage_metadata',
      'STRUCT<cluster_id: STRING, job_id: STRING, warehouse_id: STRING, instance_pool_id: STRING, node_type: STRING, job_run_id: STRING, notebook_id: STRING, dlt_pipeline_id: STRING, endpoint_name: STRING, endpoint_id: STRING, dlt_update_id: STRING, dlt_maintenance_id: STRING, run_name: STRING, job_name: STRING, notebook_path: STRING, central_clean_room_id: STRING, source_region: STRING, destination_region: STRING, app_id: STRING, app_name: STRING, metastore_id: STRING, private_endpoint_name: STRING, storage_api_type: STRING, budget_policy_id: STRING, ai_runtime_pool_id: STRING, ai_runtime_workload_id: STRING, uc_table_catalog: STRING, uc_table_schema: STRING, uc_table_name: STRING, database_instance_id: STRING, sharing_materialization_id: STRING, schema_id: STRING>',
    ),
    column('identity_metadata', 'STRUCT<run_as: STRING, owned_by: STRING, created_by: STRING>'),
    column('record_type', 'STRING'),
    column('ingestion_date', 'DATE'),
    column('billing_origin_product', 'STRING'),
    column(
      'product_features',
      'STRUCT<jobs_tier: STRING, sql_tier: STRING, dlt_tier: STRING, is_serverless: BOOLEAN, is_photon: BOOLEAN, serving_type: STRING, networking: STRUCT<connectivity_type: STRING>, ai_runtime: STRUCT<compute_type: STRING>, model_serving: STRUCT<offering_type: STRING>, ai_gateway: STRUCT<feature_type: STRING>, performance_target: STRING, serverless_gpu: STRUCT<workload_type: STRING>, ai_search: STRUCT<search_type: STRING>>',
    ),
    column('usage_type', 'STRING'),
  ],
};

export const listPricesTable: TableDefinition = {
  name: 'system.billing.list_prices',
  columns: [
    column('price_start_time', 'TIMESTAMP'),
    column('price_end_time', 'TIMESTAMP'),
    column('account_id', 'STRING'),
    column('sku_name', 'STRING'),
    column('cloud', 'STRING'),
    column('currency_code', 'STRING'),
    column('usage_unit', 'STRING'),
    column(
      'pricing',
      'STRUCT<default: DECIMAL(38,18), promotional: STRUCT<default: DECIMAL(38,18)>, effective_list: STRUCT<default: DECIMAL(38,18)>>',
    ),
  ],
};

export const clustersTable: TableDefinition = {
  name: 'system.compute.clusters',
  columns: [
    column('account_id', 'STRING'),
    column('workspace_id', 'STRING'),
    column('cluster_id', 'STRING'),
    column('cluster_name', 'STRING'),
    column('owned_by', 'STRING'),
    column('create_time', 'TIMESTAMP'),
    column('delete_time', 'TIMESTAMP'),
    column('driver_node_type', 'STRING'),
    column('worker_node_type', 'STRING'),
    column('worker_count', 'BIGINT'),
    column('min_autoscale_workers', 'BIGINT'),
    column('max_autoscale_workers', 'BIGINT'),
    column('auto_termination_minutes', 'BIGINT'),
    column('enable_elastic_disk', 'BOOLEAN'),
    column('tags', 'MAP<STRING, STRING>'),
    column('cluster_source', 'STRING'),
    column('init_scripts', 'ARRAY<STRING>'),
    column(
      'aws_attributes',
      'STRUCT<first_on_demand: INT, availability: STRING, zone_id: STRING, instance_profile_arn: STRING, spot_bid_price_percent: INT, ebs_volume_type: STRING, ebs_volume_count: INT, ebs_volume_size: INT, ebs_volume_iops: INT, ebs_volume_throughput: INT>',
    ),
    column(
      'azure_attributes',
      'STRUCT<first_on_demand: INT, availability: STRING, spot_bid_max_price: DOUBLE>',
    ),
    column(
      'gcp_attributes',
      'STRUCT<use_preemptible_executors: BOOLEAN, zone_id: STRING, first_on_demand: INT, availability: STRING>',
    ),
    column('driver_instance_pool_id', 'STRING'),
    column('worker_instance_pool_id', 'STRING'),
    column('dbr_version', 'STRING'),
    column('change_time', 'TIMESTAMP'),
    column('change_date', 'DATE'),
    column('data_security_mode', 'STRING'),
    column('policy_id', 'STRING'),
  ],
};

export const nodeTimelineTable: TableDefinition = {
  name: 'system.compute.node_timeline',
  columns: [
    column('account_id', 'STRING'),
    column('workspace_id', 'STRING'),
    column('cluster_id', 'STRING'),
    column('instance_id', 'STRING'),
    column('start_time', 'TIMESTAMP'),
    column('end_time', 'TIMESTAMP'),
    column('driver', 'BOOLEAN'),
    column('cpu_user_percent', 'DOUBLE'),
    column('cpu_system_percent', 'DOUBLE'),
    column('cpu_wait_percent', 'DOUBLE'),
    column('mem_used_percent', 'DOUBLE'),
    column('mem_swap_percent', 'DOUBLE'),
    column('network_sent_bytes', 'BIGINT'),
    column('network_received_bytes', 'BIGINT'),
    column('disk_free_bytes_per_mount_point', 'MAP<STRING, BIGINT>'),
    column('node_type', 'STRING'),
    column('private_ip', 'STRING'),
  ],
};

const runTimelineColumns = [
  column('account_id', 'STRING'),
  column('workspace_id', 'STRING'),
  column('job_id', 'STRING'),
  column('run_id', 'STRING'),
  column('period_start_time', 'TIMESTAMP'),
  column('period_end_time', 'TIMESTAMP'),
  column('trigger_type', 'STRING'),
  column('run_type', 'STRING'),
  column('run_name', 'STRING'),
  column('compute_ids', 'ARRAY<STRING>'),
  column('result_state', 'STRING'),
  column('termination_code', 'STRING'),
  column('job_parameters', 'MAP<STRING, STRING>'),
  column('setup_duration_seconds', 'BIGINT'),
  column('queue_duration_seconds', 'BIGINT'),
  column('run_duration_seconds', 'BIGINT'),
  column('cleanup_duration_seconds', 'BIGINT'),
  column('execution_duration_seconds', 'BIGINT'),
];

export const jobRunTimelineTable: TableDefinition = {
  name: 'system.lakeflow.job_run_timeline',
  columns: runTimelineColumns,
};

export const jobTaskRunTimelineTable: TableDefinition = {
  name: 'system.lakeflow.job_task_run_timeline',
  columns: [
    column('account_id', 'STRING'),
    column('workspace_id', 'STRING'),
    column('job_id', 'STRING'),
    column('run_id', 'STRING'),
    column('job_run_id', 'STRING'),
    column('parent_run_id', 'STRING'),
    column('period_start_time', 'TIMESTAMP'),
    column('period_end_time', 'TIMESTAMP'),
    column('task_key', 'STRING'),
    column('compute_ids', 'ARRAY<STRING>'),
    column('result_state', 'STRING'),
    column('termination_code', 'STRING'),
    column('task_parameters', 'MAP<STRING, STRING>'),
    column('setup_duration_seconds', 'BIGINT'),
    column('cleanup_duration_seconds', 'BIGINT'),
    column('execution_duration_seconds', 'BIGINT'),
  ],
};

export const systemTables: TableDefinition[] = [
  usageTable,
  listPricesTable,
  clustersTable,
  nodeTimelineTable,
  jobRunTimelineTable,
  jobTaskRunTimelineTable,
];

/** Columns whose values are JSON text in SQLite: struct fields are read with `json_extract`. */
export function isNestedType(type: string): boolean {
  return /^(STRUCT|MAP|ARRAY)</.test(type);
}
