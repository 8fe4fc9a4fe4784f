import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListOf, listResponse, PageQuery } from '../http/pagination.js';
import { errorResponses, IdParams } from '../http/schemas.js';
import { listWebhookDeliveryAttempts, resendEvent } from './webhook-delivery.service.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  retrieveWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from './webhook-endpoint.service.js';
import {
  CreateWebhookEndpointBody,
  DeletedWebhookEndpoint,
  DeliveryListQuery,
  EventResend,
  ResendEventBody,
  RotateSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './webhook.schemas.js';

const TAGS = ['Webhook endpoints'];
const EndpointRef = Type.Ref(WebhookEndpoint);
const EndpointWithSecretRef = Type.Ref(WebhookEndpointWithSecret);
const Params = IdParams('we_', 'webhook endpoint');

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(WebhookEndpoint);
  app.addSchema(WebhookEndpointWithSecret);
  app.addSchema(WebhookDeliveryAttempt);
  app.addSchema(EventResend);

  app.post(
    '/webhook_endpoints',
    {
      schema: {
        tags: TAGS,
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint',
        description:
          'Registers a URL to receive events, signed per the Standard Webhooks specification. The response carries the signing `secret`; ' +
          'it is shown only here and on rotation. The URL is checked now (scheme, port, and every address its host resolves to) and again at each delivery.',
        body: CreateWebhookEndpointBody,
        response: { 200: EndpointWithSecretRef, ...errorResponses() },
      },
    },
    async (request) => createWebhookEndpoint(app.ctx, request.scope, request.body),
  );

  app.get(
    '/webhook_endpoints',
    {
      schema: {
        tags: TAGS,
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: 'Newest first, with cursor pagination (`starting_after` / `ending_before`). Secrets are never listed.',
        querystring: PageQuery,
        response: { 200: ListOf(EndpointRef, '/v1/webhook_endpoints'), ...errorResponses() },
      },
    },
    async (request) => listResponse(request, await listWebhookEndpoints(app.ctx, request.scope, request.query)),
  );

  app.get(
    '/webhook_endpoints/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'retrieveWebhookEndpoint',
        summary: 'Retrieve a webhook endpoint',
        description: 'The endpoint without its secret.',
        params: Params,
        response: { 200: EndpointRef, ...errorResponses(404) },
      },
    },
    async (request) => retrieveWebhookEndpoint(app.ctx, request.scope, request.params.id),
  );

  app.post(
    '/webhook_endpoints/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint',
        description:
          'Changes the URL (checked again), `enabled_events` or `description`; `disabled: true` stops deliveries and `disabled: false` resumes them ' +
          '(whatever disabled the endpoint). Events that were not delivered meanwhile can be resent.',
        params: Params,
        body: UpdateWebhookEndpointBody,
        response: { 200: EndpointRef, ...errorResponses(404) },
      },
    },
    async (request) => updateWebhookEndpoint(app.ctx, request.scope, request.params.id, request.body),
  );

  app.delete(
    '/webhook_endpoints/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint and its delivery history; deliveries still pending are dropped.',
        params: Params,
        response: { 200: DeletedWebhookEndpoint, ...errorResponses(404) },
      },
    },
    async (request) => deleteWebhookEndpoint(app.ctx, request.scope, request.params.id),
  );

  app.post(
    '/webhook_endpoints/:id/rotate_secret',
    {
      schema: {
        tags: TAGS,
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'Rotate the signing secret',
        description:
          'Issues a new secret, returned only in this response. For `grace_period` seconds (default 86400) deliveries carry two signatures, ' +
          'one with the new and one with the previous secret, so receivers can switch without missing an event.',
        params: Params,
        body: RotateSecretBody,
        response: { 200: EndpointWithSecretRef, ...errorResponses(404) },
      },
    },
    async (request) => rotateWebhookSecret(app.ctx, request.scope, request.params.id, request.body),
  );

  app.get(
    '/webhook_endpoints/:id/deliveries',
    {
      schema: {
        tags: TAGS,
        operationId: 'listWebhookDeliveryAttempts',
        summary: 'List delivery attempts',
        description:
          'Every attempt to send an event to this endpoint, newest first: the receiver’s status, duration, error and when the next attempt is due. ' +
          'Filter by `event`; cursor pagination.',
        params: Params,
        querystring: DeliveryListQuery,
        response: { 200: ListOf(Type.Ref(WebhookDeliveryAttempt), '/v1/webhook_endpoints/{id}/deliveries'), ...errorResponses(404) },
      },
    },
    async (request) => listResponse(request, await listWebhookDeliveryAttempts(app.ctx, request.scope, request.params.id, request.query)),
  );

  app.post(
    '/events/:id/resend',
    {
      schema: {
        tags: ['Events'],
        operationId: 'resendEvent',
        summary: 'Send an event to webhook endpoints again',
        description:
          'Queues a new delivery of the event, with the full retry schedule, to `endpoint` if given (it must be enabled), otherwise to every enabled ' +
          'endpoint subscribed to its type. The `webhook-id` header stays the event id.',
        params: IdParams('evt_', 'event'),
        body: ResendEventBody,
        response: { 200: Type.Ref(EventResend), ...errorResponses(404) },
      },
    },
    async (request) => resendEvent(app.ctx, request.scope, request.params.id, request.body),
  );
};
