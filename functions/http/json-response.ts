/**
 * Success responses: JSON body plus the `tid` header.
 */
import type { APIGatewayProxyResultV2 } from 'aws-lambda';

/**
 * A 200 JSON response.
 * @param body - serialisable response body
 * @param tid - tracking id, returned as the `tid` header
 */
export function jsonResponse(body: unknown, tid: string): APIGatewayProxyResultV2 {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', tid },
    body: JSON.stringify(body),
  };
}
