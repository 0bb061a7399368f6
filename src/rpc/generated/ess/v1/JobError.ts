// Original file: proto/ess/v1/admin.proto


export interface JobError {
  'code'?: (string);
  'message'?: (string);
}

export interface JobError__Output {
  'code': (string);
  'message': (string);
}
