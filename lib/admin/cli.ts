/**
 * Entry point of the operator CLI: `npm run admin -- <command> [options]` (see `program.ts`).
 * The only file of the CLI that reads the process environment, and only for option defaults.
 */
import { runCli } from './program';

// Node 20 is supported by the pinned SDK; its notice about future SDK releases is noise on every run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, JWT_AUDIENCE, AWS_REGION } = process.env;

process.exitCode = await runCli(
  process.argv.slice(2),
  { TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, JWT_AUDIENCE, AWS_REGION },
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
);
