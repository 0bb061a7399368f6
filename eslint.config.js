// One linter for the whole tree, with type-checked rules. The import rules hold the
// architecture: storage engines know no transport, transports know no engine.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const transports = ["@grpc/*", "fastify", "@fastify/*", "ws"];
/** The benchmarks' own code (bench/grpc-load/'s transports, say) serves the benchmarks alone. */
const benchmarks = { group: ["**/bench/**"], message: "the product imports nothing from bench/" };

/** What a transport (src/rpc, src/rest, src/ws, src/client) may not import. */
const transportPatterns = [
  {
    group: ["**/storage/**"],
    message:
      "transports reach storage only through operations; bodies, payloads and stored records are in src/contract",
  },
  benchmarks,
];
/** The gRPC server's fast carrier builds on nothing else and nothing else builds on it. */
const fastCarrierIsTheServers = {
  group: ["**/fast-carrier/**"],
  message: 'the gRPC fast carrier is the server\'s alone (src/rpc/server.ts; docs/rpc.md, "Carriers")',
};

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "src/rpc/generated/**",
      "coverage/**",
      "test/fixtures/**",
      "test-artifacts/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["*.js", "scripts/*.js", ".ci/*.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-floating-promises": "error",
      "no-console": "error",
    },
  },
  {
    files: ["src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [benchmarks] }] },
  },
  {
    files: ["src/storage/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: transports, message: "storage engines import no transport" }, benchmarks] },
      ],
    },
  },
  {
    files: ["src/rpc/**/*.ts", "src/rest/**/*.ts", "src/ws/**/*.ts", "src/client/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [...transportPatterns, fastCarrierIsTheServers] }],
    },
  },
  {
    files: ["src/rpc/server.ts", "src/rpc/fast-carrier/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: transportPatterns }] },
  },
  {
    // The contract sits below every layer: operations, engines and transports import it.
    files: ["src/contract/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                ...transports,
                "**/storage/**",
                "**/operations/**",
                "**/rpc/**",
                "**/rest/**",
                "**/ws/**",
                "**/client/**",
              ],
              message: "the contract imports no layer above it",
            },
            benchmarks,
          ],
        },
      ],
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts", "src/cli/**/*.ts"],
    rules: { "no-console": "off" },
  },
  {
    // node:test's test() returns a promise the runner awaits itself.
    files: ["test/**/*.ts", "src/**/*.test.ts"],
    rules: { "@typescript-eslint/no-floating-promises": "off" },
  },
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, "no-console": "off" },
  },
);
