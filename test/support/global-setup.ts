/**
 * Starts one in-memory DynamoDB Local for the whole test run and stops its JVM afterwards.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Node 20 is supported by the pinned SDK; its notice about future SDK releases is noise on every run.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const local = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', local.endpoint);
  return () => local.stop();
}
