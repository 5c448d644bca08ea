/**
 * The stack's CloudWatch alarms: the API's 5xx rate, errors and throttles of each function, and
 * throttled requests and system errors of the table. Each notifies the optional SNS topic.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** Window every alarm evaluates. */
export const ALARM_PERIOD = Duration.minutes(5);

/** Share of requests answered with a 5xx, in percent, above which the API alarm fires. */
export const SERVER_ERROR_RATE_PERCENT = 1;

/** What the alarms watch. */
export interface ServiceAlarmsProps {
  /** The API stage whose `5xx` and `Count` metrics give the error rate. */
  readonly stage: HttpStage;
  /** The functions to watch, by a short label used in construct ids and descriptions. */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly table: ITable;
  /** DynamoDB operations the functions call (the table's metrics are per operation). */
  readonly tableOperations: readonly Operation[];
  /** Where alarms and recoveries are sent; without it the alarms only change state. */
  readonly alarmTopic?: ITopic | undefined;
}

/** One alarm per failure signal, all on {@link ALARM_PERIOD}, missing data treated as healthy. */
export class ServiceAlarms extends Construct {
  /** Every alarm, for tests and dashboards. */
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);

    const period = ALARM_PERIOD;
    this.add('ApiServerErrorRate', {
      description: `More than ${SERVER_ERROR_RATE_PERCENT} % of API requests answered 5xx over 5 minutes`,
      metric: new MathExpression({
        // No 5xx datapoint means no server error; no Count datapoint means no traffic (missing data).
        expression: '100 * FILL(serverErrors, 0) / requests',
        usingMetrics: {
          serverErrors: props.stage.metricServerError({ period, statistic: 'Sum' }),
          requests: props.stage.metricCount({ period, statistic: 'Sum' }),
        },
        label: '5xx rate (%)',
        period,
      }),
      threshold: SERVER_ERROR_RATE_PERCENT,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      topic: props.alarmTopic,
    });

    for (const [label, fn] of Object.entries(props.functions)) {
      // Handlers turn failures into error bodies, so Lambda `Errors` are crashes and time-outs.
      this.add(`${label}Errors`, {
        description: `${label} function: invocations that crashed or timed out`,
        metric: fn.metricErrors({ period, statistic: 'Sum' }),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        topic: props.alarmTopic,
      });
      this.add(`${label}Throttles`, {
        description: `${label} function: invocations throttled by Lambda concurrency limits`,
        metric: fn.metricThrottles({ period, statistic: 'Sum' }),
        threshold: 1,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        topic: props.alarmTopic,
      });
    }

    const operations = [...props.tableOperations];
    this.add('TableThrottledRequests', {
      description: 'DynamoDB requests of the service table throttled',
      metric: props.table.metricThrottledRequestsForOperations({ operations, period, statistic: 'Sum' }),
      threshold: 1,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      topic: props.alarmTopic,
    });
    this.add('TableSystemErrors', {
      description: 'DynamoDB requests of the service table failed with a 500 (service-side error)',
      metric: props.table.metricSystemErrorsForOperations({ operations, period, statistic: 'Sum' }),
      threshold: 1,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      topic: props.alarmTopic,
    });
  }

  private add(
    id: string,
    spec: {
      description: string;
      metric: IMetric;
      threshold: number;
      comparison: ComparisonOperator;
      topic: ITopic | undefined;
    },
  ): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: spec.description,
      metric: spec.metric,
      threshold: spec.threshold,
      comparisonOperator: spec.comparison,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (spec.topic !== undefined) {
      alarm.addAlarmAction(new SnsAction(spec.topic));
      alarm.addOkAction(new SnsAction(spec.topic));
    }
    this.alarms.push(alarm);
  }
}
