// Original file: proto/ess/v1/admin.proto

import type { Job as _ess_v1_Job, Job__Output as _ess_v1_Job__Output } from '../../ess/v1/Job.js';

export interface JobList {
  'jobs'?: (_ess_v1_Job)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}

export interface JobList__Output {
  'jobs': (_ess_v1_Job__Output)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}
