// Original file: proto/ess/v1/admin.proto


export interface StartJobRequest {
  'kind'?: (string);
  'dry_run'?: (boolean);
  'confirm'?: (boolean);
  '_dry_run'?: "dry_run";
  '_confirm'?: "confirm";
}

export interface StartJobRequest__Output {
  'kind': (string);
  'dry_run'?: (boolean);
  'confirm'?: (boolean);
  '_dry_run'?: "dry_run";
  '_confirm'?: "confirm";
}
