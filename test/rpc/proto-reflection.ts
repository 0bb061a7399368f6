// protobufjs's reflection of proto/, for tests that walk the messages field by field.
import protobuf from "protobufjs";
import { protoDir, protoFiles } from "../../src/rpc/proto.js";

/** proto/ as proto-loader loads it (src/rpc/proto.ts): the same files, include folder and field names. */
function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => protoDir + target;
  root.loadSync(protoFiles, { keepCase: true });
  root.resolveAll();
  return root;
}

export const protoRoot = loadRoot();

/** Every message type of `namespace` and the namespaces and types within it. */
export function messageTypes(namespace: protobuf.NamespaceBase = protoRoot): protobuf.Type[] {
  return namespace.nestedArray.flatMap((nested) => {
    const inner = nested instanceof protobuf.Namespace ? messageTypes(nested) : [];
    return nested instanceof protobuf.Type ? [nested, ...inner] : inner;
  });
}
