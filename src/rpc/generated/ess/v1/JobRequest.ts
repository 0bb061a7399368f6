// Original file: proto/ess/v1/admin.proto


export interface JobRequest {
  'job_id'?: (string);
}

export interface JobRequest__Output {
  'job_id': (string);
}
