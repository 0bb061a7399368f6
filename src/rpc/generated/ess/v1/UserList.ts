// Original file: proto/ess/v1/admin.proto

import type { User as _ess_v1_User, User__Output as _ess_v1_User__Output } from '../../ess/v1/User.js';

export interface UserList {
  'users'?: (_ess_v1_User)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}

export interface UserList__Output {
  'users': (_ess_v1_User__Output)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}
