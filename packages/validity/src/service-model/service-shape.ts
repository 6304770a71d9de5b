/**
 * A shape of an AWS service model (the JSON botocore and the AWS SDKs are generated from): its type, its
 * members by name (each naming another shape), and the constraints the model states.
 */
export interface ServiceShape {
  type:
    | 'structure'
    | 'list'
    | 'map'
    | 'string'
    | 'integer'
    | 'long'
    | 'double'
    | 'float'
    | 'boolean'
    | 'timestamp'
    | 'blob';
  required?: readonly string[];
  members?: Readonly<Record<string, string>>;
  member?: string;
  key?: string;
  value?: string;
  min?: number;
  max?: number;
  enum?: readonly string[];
  pattern?: string;
  union?: boolean;
}

export interface ServiceModel {
  source: string;
  apiVersion: string;
  /** The input shape of each operation. */
  operations: Readonly<Record<string, string>>;
  shapes: Readonly<Record<string, ServiceShape>>;
}
