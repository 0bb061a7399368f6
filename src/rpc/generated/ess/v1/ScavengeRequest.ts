// Original file: proto/ess/v1/admin.proto


export interface ScavengeRequest {
  'dry_run'?: (boolean);
  'confirm'?: (boolean);
  '_dry_run'?: "dry_run";
  '_confirm'?: "confirm";
}

export interface ScavengeRequest__Output {
  'dry_run'?: (boolean);
  'confirm'?: (boolean);
  '_dry_run'?: "dry_run";
  '_confirm'?: "confirm";
}
