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
  const local = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', local.endpoint);
  return () => local.stop();
}
