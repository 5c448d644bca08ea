/**
 * CDK app entry (`cdk.json`: `npx tsx infra/app.ts`): reads the deployment settings from CDK context
 * (keys and defaults: `infra/settings.ts`), builds the one stack, and runs cdk-nag.
 *
 * cdk-nag's AwsSolutions checks run on every synth: a finding that is neither fixed nor acknowledged
 * (with its reason, next to the resource, in `infra/`) fails the synth.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './settings';
import { ServiceStack } from './stack';

const app = new App();
new ServiceStack(app, 'ModelEngineApi', settingsFromContext(app));
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
