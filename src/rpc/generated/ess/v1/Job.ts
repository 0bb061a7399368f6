// Original file: proto/ess/v1/admin.proto

import type { JobProgress as _ess_v1_JobProgress, JobProgress__Output as _ess_v1_JobProgress__Output } from '../../ess/v1/JobProgress.js';
import type { VerifyResult as _ess_v1_VerifyResult, VerifyResult__Output as _ess_v1_VerifyResult__Output } from '../../ess/v1/VerifyResult.js';
import type { ScavengeResult as _ess_v1_ScavengeResult, ScavengeResult__Output as _ess_v1_ScavengeResult__Output } from '../../ess/v1/ScavengeResult.js';
import type { JobError as _ess_v1_JobError, JobError__Output as _ess_v1_JobError__Output } from '../../ess/v1/JobError.js';

export interface Job {
  'job_id'?: (string);
  'kind'?: (string);
  'dry_run'?: (boolean);
  'state'?: (string);
  'progress'?: (_ess_v1_JobProgress | null);
  'created_at'?: (string);
  'started_at'?: (string);
  'finished_at'?: (string);
  'verify_result'?: (_ess_v1_VerifyResult | null);
  'scavenge_result'?: (_ess_v1_ScavengeResult | null);
  'error'?: (_ess_v1_JobError | null);
  '_started_at'?: "started_at";
  '_finished_at'?: "finished_at";
  'result'?: "verify_result"|"scavenge_result";
  '_error'?: "error";
}

export interface Job__Output {
  'job_id': (string);
  'kind': (string);
  'dry_run': (boolean);
  'state': (string);
  'progress': (_ess_v1_JobProgress__Output | null);
  'created_at': (string);
  'started_at'?: (string);
  'finished_at'?: (string);
  'verify_result'?: (_ess_v1_VerifyResult__Output | null);
  'scavenge_result'?: (_ess_v1_ScavengeResult__Output | null);
  'error'?: (_ess_v1_JobError__Output | null);
  '_started_at'?: "started_at";
  '_finished_at'?: "finished_at";
  'result'?: "verify_result"|"scavenge_result";
  '_error'?: "error";
}
